"""The fake ledger's histories and supersessions."""

from __future__ import annotations

from collections.abc import Sequence

from service.domain.entries import Entry, HistoryEvent, Supersession, key_namespace
from tests.fakes.ledger.state import LedgerState


class FakeHistory(LedgerState):
    """``History`` and ``Relations``."""

    def history(self, key: str) -> list[HistoryEvent]:
        return sorted(self.events.get(key, []), key=lambda e: e.at)

    def histories(self, keys: Sequence[str]) -> dict[str, list[HistoryEvent]]:
        return {k: self.history(k) for k in dict.fromkeys(keys) if k in self.events}

    def supersessions(self, keys: Sequence[str]) -> list[Supersession]:
        wanted = set(keys)
        mine = [r for r in self.relations if r.older in wanted or r.newer in wanted]
        return sorted(mine, key=lambda r: (r.at, r.older, r.newer))

    def superseded_between(
        self, namespace: str, start: float, end: float, limit: int = 500
    ) -> list[tuple[str, HistoryEvent]]:
        found = [
            (key, e)
            for key, events in self.events.items()
            if key_namespace(key) == namespace
            for e in events
            if e.action == "superseded" and start <= e.at < end
        ]
        return sorted(found, key=lambda pair: pair[1].at)[:limit]

    def duplicates(self, wanted: Sequence[Entry]) -> dict[str, str]:
        found: dict[str, str] = {}
        for e in wanted:
            mine = (e.namespace, e.fingerprint)
            for key, s in self.entries.items():
                same = (s.entry.namespace, s.entry.fingerprint) == mine
                if same and key != e.key and self._live(key):
                    found[e.key] = s.entry.id
                    break
        return found
