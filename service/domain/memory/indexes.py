"""The derived indexes (Chroma and Tantivy) kept in step with the ledger, under the one lock
every change to stored entries holds."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence

from service.domain.entries import StoredEntry, key_namespace
from service.domain.errors import EngineUnavailable
from service.domain.ports import Entries, IndexState, KeywordStore, VectorStore


class Indexes:
    """Applies what the ledger holds to both indexes, and tells ``on_change`` the namespaces
    of every change once the indexes hold it.

    Chroma holds the vectors of live (not archived) tier A and C entries; Tantivy holds
    every entry. Both can be rebuilt from the ledger, which keeps the vectors.
    """

    def __init__(
        self,
        entries: Entries,
        state: IndexState,
        vectors: VectorStore,
        keywords: KeywordStore,
        *,
        clock: Callable[[], float] = time.time,
        on_change: Callable[[Iterable[str]], None] | None = None,
        lock: threading.Lock | None = None,
    ) -> None:
        self.entries = entries
        self.state = state
        self.vectors = vectors
        self.keywords = keywords
        self.clock = clock
        self.on_change = on_change
        """Told the namespaces of every change, once the indexes hold it."""
        self.lock = lock or threading.Lock()
        """Held by every change to stored entries, from the ledger to the indexes (and by a
        replica applying the changes of others to its index)."""

    def index(self, stored: Sequence[StoredEntry]) -> None:
        """Put ``stored`` in both indexes and mark it synced."""
        keys = [s.entry.key for s in stored]
        try:
            self.vectors.delete(keys)
            self.vectors.upsert([s for s in stored if s.in_vector_index])
        except EngineUnavailable:
            # Found by keywords meanwhile; they stay pending, for ``recover`` to finish.
            self.keywords.apply(stored, ())
            self.changed(s.entry.namespace for s in stored)
            raise
        self.keywords.apply(stored, ())
        self.state.mark_synced(keys)
        self.changed(s.entry.namespace for s in stored)

    def remove(self, keys: Sequence[str], actor: str = "") -> None:
        """Take entries flagged for removal out of both indexes, then out of the ledger."""
        self.vectors.delete(keys)
        self.keywords.apply((), keys)
        self.entries.remove(keys, actor=actor, at=self.clock())
        self.changed(key_namespace(k) for k in keys)

    def changed(self, namespaces: Iterable[str]) -> None:
        if self.on_change is not None:
            self.on_change(set(namespaces))
