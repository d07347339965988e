"""What the domain needs from the outside world. Adapters live in ``service.stores``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from service.domain.models import Chunk, Filters, Hit, StoredEntry, Tier


class Embedder(Protocol):
    name: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        """Unit-length vectors, one per text, in order."""
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
        """Best entries of one tier by cosine similarity (score in [-1, 1]), one hit per entry."""
        ...

    def count(self, tier: Tier) -> int: ...

    def clear(self) -> None: ...

    def health(self) -> str: ...


class KeywordStore(Protocol):
    def apply(self, upserts: Sequence[StoredEntry], deletes: Sequence[str]) -> None:
        """Replace or add ``upserts`` and remove ``deletes`` in one commit, visible on return."""
        ...

    def search(self, text: str, filters: Filters, limit: int) -> list[Hit]:
        """BM25 ranking of entries matching ``filters``; no query syntax is interpreted."""
        ...

    def count(self) -> int: ...

    def clear(self) -> None: ...


class Ledger(Protocol):
    def put(self, stored: Sequence[StoredEntry]) -> None:
        """Durably record entries (replacing same keys) as pending indexing."""
        ...

    def mark_synced(self, keys: Iterable[str]) -> None: ...

    def mark_deleting(self, keys: Sequence[str]) -> list[str]:
        """Flag existing entries for removal; returns the keys that existed."""
        ...

    def remove(self, keys: Sequence[str]) -> None: ...

    def get(self, keys: Sequence[str]) -> dict[str, StoredEntry]: ...

    def unsynced(self) -> tuple[list[StoredEntry], list[str]]:
        """Entries written but not yet indexed, and keys flagged for removal."""
        ...

    def scan(self, batch: int = 500) -> Iterator[list[StoredEntry]]:
        """Every live entry, in batches, for rebuilding the indexes."""
        ...

    def count(self) -> dict[str, int]: ...


class Clock(Protocol):
    def __call__(self) -> float:
        """Seconds since the epoch."""
        ...


class IdFactory(Protocol):
    def __call__(self) -> str: ...


__all__ = [
    "Chunk",
    "Clock",
    "Embedder",
    "IdFactory",
    "KeywordStore",
    "Ledger",
    "VectorStore",
]
