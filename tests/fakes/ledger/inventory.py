"""The fake ledger's worklists and counts."""

from __future__ import annotations

from service.domain.entries import Entry
from service.domain.model import StoredCounts
from tests.fakes.ledger.state import LedgerState


class FakeInventory(LedgerState):
    """Worklists and counts (``Inventory``)."""

    def select_keys(
        self,
        *,
        tier: str,
        archived: bool = False,
        expires_before: float | None = None,
        older_than: float | None = None,
        exclude_kind: str | None = None,
        limit: int = 1000,
    ) -> list[str]:
        found = [
            key
            for key, s in self.entries.items()
            if self._live(key)
            and s.entry.tier == tier
            and s.entry.archived == archived
            and s.entry.kind != exclude_kind
            and (
                expires_before is None
                or (s.entry.expires_at is not None and s.entry.expires_at <= expires_before)
            )
            and (older_than is None or s.entry.timestamp < older_than)
        ]
        return sorted(found, key=lambda k: (self.entries[k].entry.timestamp, k))[:limit]

    def dated(
        self, namespace: str, tier: str, start: float, end: float, *, archived: bool
    ) -> list[Entry]:
        found = [
            s.entry
            for key, s in self.entries.items()
            if self._live(key)
            and s.entry.namespace == namespace
            and s.entry.tier == tier
            and s.entry.archived == archived
            and start <= s.entry.timestamp < end
        ]
        return sorted(found, key=lambda e: (e.timestamp, e.key))

    def stats(self) -> list[StoredCounts]:
        groups: dict[tuple[str, str, bool], list[int]] = {}
        for key, s in self.entries.items():
            if not self._live(key):
                continue
            e = s.entry
            row = groups.setdefault((e.namespace, e.tier, e.archived), [0, 0, 0, 0])
            vectors = sum(1 for c in s.chunks if c.vector is not None)
            row[0] += 1
            row[1] += vectors
            row[2] += s.tokens if vectors else 0
            row[3] += s.tokens
        return [StoredCounts(*group, *counts) for group, counts in sorted(groups.items())]
