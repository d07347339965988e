"""The write path: ledger first, then the derived indexes; reads and deletes by key."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import replace

from service.domain.chunking import chunk_text
from service.domain.models import Chunk, Entry, StoredEntry, WriteOutcome
from service.domain.ports import Embedder, KeywordStore, Ledger, VectorStore
from service.errors import Unavailable

log = logging.getLogger(__name__)


def embedding_input(entry: Entry, chunk: str) -> str:
    """What the model reads for a chunk: who said it matters to what it means."""
    return f"{entry.speaker}: {chunk}" if entry.speaker else chunk


class Memory:
    """Owns every change to stored entries.

    Order of a write: vectors are computed first (no lock held), then the ledger
    records the entries as pending in one transaction (the write is now durable),
    then Chroma and Tantivy are updated and the entries marked synced. Anything
    pending after a crash is re-applied from the ledger by ``recover``.
    """

    def __init__(
        self,
        ledger: Ledger,
        vectors: VectorStore,
        keywords: KeywordStore,
        embedder: Embedder | None,
        *,
        chunk_words: int = 150,
        chunk_overlap: int = 30,
    ) -> None:
        self.ledger = ledger
        self.vectors = vectors
        self.keywords = keywords
        self.embedder = embedder
        self.chunk_words = chunk_words
        self.chunk_overlap = chunk_overlap
        self._lock = threading.Lock()

    def write(self, entries: Sequence[Entry]) -> WriteOutcome:
        stored = self.prepare(entries)
        with self._lock:
            self.ledger.put(stored)
            self._index(stored)
        embedded = sum(1 for s in stored if s.entry.embedded)
        return WriteOutcome([e.id for e in entries], embedded=embedded, indexed=len(stored))

    def prepare(self, entries: Sequence[Entry]) -> list[StoredEntry]:
        """Chunk every entry and embed the chunks of embedded tiers, in one model call."""
        pieces = [chunk_text(e.text, self.chunk_words, self.chunk_overlap) for e in entries]
        wanted = [
            embedding_input(e, piece)
            for e, chunks in zip(entries, pieces, strict=True)
            if e.embedded
            for piece in chunks
        ]
        vectors = iter(self._embed(wanted)) if wanted else iter(())
        stored = []
        for entry, chunks in zip(entries, pieces, strict=True):
            built = tuple(
                Chunk(entry.key, n, text, next(vectors) if entry.embedded else None)
                for n, text in enumerate(chunks)
            )
            stored.append(StoredEntry(entry, built))
        return stored

    def _embed(self, texts: list[str]) -> list[tuple[float, ...]]:
        if self.embedder is None:
            raise Unavailable("no embedding model is loaded; tiers A and C cannot be written")
        return self.embedder.embed(texts)

    def _index(self, stored: Sequence[StoredEntry]) -> None:
        keys = [s.entry.key for s in stored]
        self.vectors.delete(keys)
        self.vectors.upsert([s for s in stored if s.entry.embedded])
        self.keywords.apply(stored, ())
        self.ledger.mark_synced(keys)

    def get(self, key: str) -> StoredEntry | None:
        return self.ledger.get([key]).get(key)

    def delete(self, keys: Sequence[str]) -> list[str]:
        """Remove entries from the ledger and both indexes; returns the keys that existed."""
        with self._lock:
            existing = self.ledger.mark_deleting(keys)
            if existing:
                self._remove(existing)
        return existing

    def _remove(self, keys: Sequence[str]) -> None:
        self.vectors.delete(keys)
        self.keywords.apply((), keys)
        self.ledger.remove(keys)

    def set_archived(self, keys: Sequence[str], archived: bool) -> int:
        """Flag entries archived (hidden from default searches) or restore them."""
        with self._lock:
            found = self.ledger.get(keys)
            changed = [
                StoredEntry(replace(s.entry, archived=archived), s.chunks)
                for s in found.values()
                if s.entry.archived != archived
            ]
            if changed:
                self.ledger.put(changed)
                self._index(changed)
        return len(changed)

    def recover(self) -> tuple[int, int]:
        """Finish writes and deletes interrupted by a crash. Returns (re-indexed, removed)."""
        with self._lock:
            pending, deleting = self.ledger.unsynced()
            if pending:
                self._index(pending)
            if deleting:
                self._remove(deleting)
        if pending or deleting:
            log.info("recovered %d pending writes and %d deletes", len(pending), len(deleting))
        return len(pending), len(deleting)

    def rebuild(self) -> int:
        """Recreate Chroma and Tantivy from the ledger. Returns the number of entries."""
        total = 0
        with self._lock:
            self.vectors.clear()
            self.keywords.clear()
            for batch in self.ledger.scan():
                self.vectors.upsert([s for s in batch if s.entry.embedded])
                self.keywords.apply(batch, ())
                total += len(batch)
        return total
