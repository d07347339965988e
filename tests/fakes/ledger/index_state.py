"""The fake ledger's entry states and quarantine."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from service.domain.entries import EMBEDDED_TIERS, Quarantined, StoredEntry
from tests.fakes.ledger.state import LedgerState


class FakeIndexState(LedgerState):
    """Entry states (``IndexState``)."""

    def mark_synced(self, keys: Iterable[str]) -> None:
        for key in keys:
            if key in self.states:
                self.states[key] = "synced"

    def mark_deleting(self, keys: Sequence[str]) -> list[str]:
        existing = [k for k in keys if k in self.entries]
        for key in existing:
            self.states[key] = "deleting"
        self._append(existing, None)
        return existing

    def unsynced(self) -> tuple[list[StoredEntry], list[str]]:
        pending = [s for k, s in self.entries.items() if self.states[k] == "pending"]
        deleting = [k for k in self.entries if self.states[k] == "deleting"]
        return pending, deleting

    def quarantine(self, reasons: Mapping[str, str], *, at: float) -> None:
        self._append((k for k in reasons if k in self.entries), at)
        for key, reason in reasons.items():
            if key in self.entries:
                self.states[key] = "quarantined"
                self.reasons[key] = Quarantined(key, reason, at)

    def quarantined(self, limit: int = 1000) -> list[Quarantined]:
        aside = [q for k, q in self.reasons.items() if self.states.get(k) == "quarantined"]
        return sorted(aside, key=lambda q: (q.at, q.key))[:limit]

    def missing_vectors(self, limit: int = 500) -> list[str]:
        found = [
            key
            for key, s in self.entries.items()
            if self._live(key)
            and s.entry.tier in EMBEDDED_TIERS
            and any(c.vector is None for c in s.chunks)
        ]
        return found[:limit]

    def vector_count(self) -> int:
        return sum(
            1
            for key, s in self.entries.items()
            if self._live(key) and s.entry.tier in EMBEDDED_TIERS and not s.entry.archived
            for c in s.chunks
            if c.vector is not None
        )
