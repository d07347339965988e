"""The derived indexes (Chroma and Tantivy) kept in step with the ledger, under the one lock
every change to stored entries holds: the one holder of the vector and keyword stores among
the memory's parts."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import KW_ONLY, dataclass, field

from service.domain.entries import EMBEDDED_TIERS, StoredEntry, Tier, key_namespace
from service.domain.errors import EngineUnavailable
from service.domain.model import Filters, Hit
from service.domain.ports import Entries, IndexState, KeywordStore, VectorStore


@dataclass(eq=False)
class Indexes:
    """Applies what the ledger holds to both indexes, and tells ``on_change`` the namespaces
    of every change once the indexes hold it.

    Chroma holds the vectors of live (not archived) tier A and C entries; Tantivy holds
    every entry. Both can be rebuilt from the ledger, which keeps the vectors.
    """

    entries: Entries
    state: IndexState
    vectors: VectorStore
    keywords: KeywordStore
    _: KW_ONLY
    clock: Callable[[], float] = time.time
    on_change: Callable[[Iterable[str]], None] | None = None
    """Told the namespaces of every change, once the indexes hold it."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held by every change to stored entries, from the ledger to the indexes (and by a
    replica applying the changes of others to its index)."""

    def index(self, stored: Sequence[StoredEntry], stale: Collection[str] | None = None) -> None:
        """Put ``stored`` in both indexes and mark it synced.

        ``stale``: the keys of ``stored`` whose earlier vectors the vector index may still
        hold (as ``Entries.put`` returned them), deleted before the new ones go in, so that
        an entry re-embedded keeps none of its old chunks and one that left the index (tier
        E, archived) none of its vectors. None when that is not known (recovering entries
        left pending): then every key's are. An entry new to the ledger has none there (an
        entry's vectors go before its row: ``remove``), so a write of tier E entries that
        replace no entry with vectors asks nothing of the vector store.
        """
        keys = [s.entry.key for s in stored]
        if stale is None:
            gone = keys
        else:
            held = set(stale)
            gone = [k for k in dict.fromkeys(keys) if k in held]
        embedded = [s for s in stored if s.in_vector_index]
        try:
            if gone:
                self.vectors.delete(gone)
            if embedded:
                self.vectors.upsert(embedded)
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

    def replace_all(self, batches: Iterable[list[StoredEntry]]) -> None:
        """Re-derive both indexes from ``batches`` (every entry they should hold, a batch at
        a time), without re-embedding: Tantivy swaps in the new documents with one commit,
        Chroma is rewritten a batch at a time (dropping records an entry no longer has:
        another tier, older chunks) and the vectors of entries not given are removed last."""
        keep: set[str] = set()

        def vectored() -> Iterator[list[StoredEntry]]:
            for batch in batches:
                live = [s for s in batch if s.in_vector_index]
                self.vectors.delete([s.entry.key for s in batch])
                self.vectors.upsert(live)
                keep.update(s.entry.key for s in live)
                yield batch

        self.keywords.replace_all(vectored())
        self.vectors.delete([k for k in self.vectors.entry_keys() if k not in keep])

    def erase_namespace(self, namespace: str) -> None:
        """Drop a namespace from both indexes (the keyword index's files of it go whole)."""
        self.vectors.erase_namespace(namespace)
        self.keywords.erase_namespace(namespace)
        self.changed([namespace])

    def match_ledger(self) -> bool:
        """Whether Chroma and Tantivy hold as many records as the ledger says they should."""
        live = sum(self.entries.count().values())
        vectors = sum(self.vectors.count(tier) for tier in ("A", "C"))
        return self.keywords.count() == live and vectors == self.state.vector_count()

    def nearest(
        self, vector: Sequence[float], namespace: str, now: float, limit: int
    ) -> list[tuple[Tier, Hit]]:
        """The entries of ``namespace`` live at ``now`` closest to ``vector``, ``limit`` at
        most of each embedded tier, tier by tier."""
        filters = Filters(namespace=namespace, tiers=EMBEDDED_TIERS, now=now)
        return [
            (tier, hit)
            for tier in EMBEDDED_TIERS
            for hit in self.vectors.search(tier, vector, filters, limit)
        ]

    def drop_expired_vectors(self, now: float) -> None:
        """Remove the vectors of tier C entries past their expiry."""
        self.vectors.delete_expired(now)

    def optimize(self) -> int:
        """Merge the keyword index's segments; returns the documents it holds."""
        self.keywords.optimize()
        return self.keywords.count()

    def changed(self, namespaces: Iterable[str]) -> None:
        if self.on_change is not None:
            self.on_change(set(namespaces))
