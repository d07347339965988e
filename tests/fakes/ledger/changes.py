"""The fake ledger's change log."""

from __future__ import annotations

from service.domain.model import Change, ChangeBounds
from tests.fakes.ledger.state import LedgerState


class FakeChangeLog(LedgerState):
    """The change log, numbered from 1 (``ChangeLog``)."""

    def changes(self, after: int, limit: int = 1000) -> list[Change]:
        return [c for c in self.log if c.seq > after][:limit]

    def change_bounds(self) -> ChangeBounds:
        return ChangeBounds(self.horizon, max(self.horizon, self.last_seq))

    def trim_changes(self, before: float) -> int:
        old = [c.seq for c in self.log if c.at < before]
        if not old:
            return 0
        kept = [c for c in self.log if c.seq > max(old)]
        dropped = len(self.log) - len(kept)
        self.log, self.horizon = kept, max(self.horizon, max(old))
        return dropped
