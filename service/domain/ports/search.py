"""The engines a search runs on: the embedding model, the vector store, the keyword index and
the reranker."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from service.domain.entries import StoredEntry, Tier
from service.domain.model import Filters, Hit, KeywordStatistics
from service.domain.tokens import TokenCounter


class Embedder(Protocol):
    name: str
    backend: str
    """What runs the model (torch, onnx, onnx-int8)."""
    dimension: int

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        """Unit-length vectors, one per text, in order."""
        ...

    @property
    def tokens(self) -> TokenCounter:
        """The model's tokenizer over whole texts: no special tokens, no window."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Model tokens each text costs to embed: its special tokens included, none past the
        model's window."""
        ...


class VectorStore(Protocol):
    def upsert(self, stored: Sequence[StoredEntry]) -> None:
        """Index the chunks of embedded entries in their tier's collection."""
        ...

    def delete(self, keys: Sequence[str]) -> None:
        """Remove every chunk of these entries from every collection."""
        ...

    def search(
        self, tier: Tier, vector: Sequence[float], filters: Filters, limit: int
    ) -> list[Hit]:
        """Best entries of one tier by cosine similarity (score in [-1, 1]), one hit per entry.

        Tier C entries past their ``expires_at`` may be among them until the expiry job
        drops them; callers check expiry."""
        ...

    def count(self, tier: Tier) -> int: ...

    def entry_keys(self) -> set[str]:
        """Every entry key with a vector in any collection."""
        ...

    def delete_expired(self, now: float) -> None:
        """Drop tier C vectors whose ``expires_at`` has passed."""
        ...

    def erase_namespace(self, namespace: str) -> None:
        """Remove every record of the namespace, and, where the store's files are this
        process's own, the bytes they took (compacted, nothing left to read back)."""
        ...

    def health(self) -> str: ...


class KeywordStore(Protocol):
    def apply(self, upserts: Sequence[StoredEntry], deletes: Sequence[str]) -> None:
        """Replace or add ``upserts`` and remove ``deletes`` in one commit, visible on return."""
        ...

    def search(
        self, text: str, filters: Filters, limit: int, needed: int | None = None
    ) -> list[Hit]:
        """BM25 ranking of entries matching ``filters``, one hit per entry, by statistics of
        the namespace's own entries alone; for an entry found
        by passage (``texts.found_by_passage``), its best chunk's score and number. No query
        syntax is interpreted.

        ``needed``: the caller reads only the best ``needed`` entries, equal scores (rounded
        to 6 places) ordered by key. Entries scoring (so rounded) below the ``needed``-th
        may then be left out; every other one of the best ``limit`` is there."""
        ...

    def statistics(self, text: str, namespace: str) -> KeywordStatistics:
        """The statistics ``search`` scores ``text`` by in ``namespace``, with the bound of
        the score it gives an entry there."""
        ...

    def erase_namespace(self, namespace: str) -> None:
        """Remove every document of the namespace, leaving none of its words in any file."""
        ...

    def replace_all(self, batches: Iterable[Sequence[StoredEntry]]) -> None:
        """Swap the whole index for these entries, visible at once when done."""
        ...

    def optimize(self) -> None:
        """Merge segments and collect garbage."""
        ...

    def count(self) -> int:
        """The entries indexed (not their passages)."""
        ...


class Reranker(Protocol):
    name: str

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """Relevance of each passage to the query, in [0, 1]."""
        ...
