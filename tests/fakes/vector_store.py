"""An in-memory vector store."""

from __future__ import annotations

from collections.abc import Sequence

from service.domain.entries import EMBEDDED_TIERS, Chunk, Entry, StoredEntry, Tier
from service.domain.model import Filters, Hit
from tests.fakes.entries import common


def vector_matches(entry: Entry, f: Filters) -> bool:
    """As Chroma filters one tier's collection: no tier or archived condition (the
    collection is the tier; archived entries are never upserted), and no expiry condition
    (the caller checks expiry against the ledger; the expiry sweep drops the vectors)."""
    return common(entry, f)


class FakeVectorStore:
    """One record per chunk (id ``key#number``) in one collection per embedded tier; cosine
    search, one hit per entry."""

    def __init__(self) -> None:
        self.records: dict[Tier, dict[str, tuple[StoredEntry, Chunk]]] = {
            t: {} for t in EMBEDDED_TIERS
        }
        self.calls: list[tuple[str, list[str]]] = []
        """Every ``upsert``, ``delete`` and ``search`` asked of it, in order: which, and the
        keys given (a search: its namespace); what a server would be sent."""

    @property
    def tiers(self) -> dict[Tier, dict[str, StoredEntry]]:
        """Each collection's entries by key (a read-only view of the records)."""
        return {
            tier: {s.entry.key: s for s, _ in records.values()}
            for tier, records in self.records.items()
        }

    @property
    def keys(self) -> set[str]:
        return self.entry_keys()

    def upsert(self, stored: Sequence[StoredEntry]) -> None:
        self.calls.append(("upsert", [s.entry.key for s in stored]))
        for s in stored:
            if s.entry.tier not in EMBEDDED_TIERS:
                continue  # as Chroma: only the A and C collections exist
            for c in s.chunks:
                if c.vector is None:
                    raise ValueError(f"{s.entry.key}: chunk without a vector")
                self.records[s.entry.tier][f"{c.key}#{c.number}"] = (s, c)

    def delete(self, keys: Sequence[str]) -> None:
        self.calls.append(("delete", list(keys)))
        gone = set(keys)
        for records in self.records.values():
            for record in [r for r, (s, _) in records.items() if s.entry.key in gone]:
                del records[record]

    def search(
        self, tier: Tier, vector: Sequence[float], filters: Filters, limit: int
    ) -> list[Hit]:
        self.calls.append(("search", [filters.namespace]))
        scored = [
            (sum(a * b for a, b in zip(vector, c.vector or (), strict=True)), s.entry.key, c.number)
            for s, c in self.records[tier].values()
            if vector_matches(s.entry, filters)
        ]
        scored.sort(key=lambda t: -t[0])
        # As Chroma: the best ``2 x limit`` chunks, the first of each entry, ``limit`` entries.
        hits: dict[str, Hit] = {}
        for score, key, number in scored[: limit * 2]:
            if key not in hits:
                hits[key] = Hit(key, score, number)
        return list(hits.values())[:limit]

    def count(self, tier: Tier) -> int:
        """Chunk records in the tier's collection, as Chroma counts."""
        return len(self.records[tier])

    def entry_keys(self) -> set[str]:
        return {s.entry.key for records in self.records.values() for s, _ in records.values()}

    def delete_expired(self, now: float) -> None:
        records = self.records["C"]
        for record in [
            r
            for r, (s, _) in records.items()
            if s.entry.expires_at is not None and s.entry.expires_at <= now
        ]:
            del records[record]

    def erase_namespace(self, namespace: str) -> None:
        for records in self.records.values():
            for record in [r for r, (s, _) in records.items() if s.entry.namespace == namespace]:
                del records[record]

    def clear(self) -> None:
        for records in self.records.values():
            records.clear()

    def health(self) -> str:
        return "ok"
