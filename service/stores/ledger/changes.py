"""The change log replicas follow (``ChangeLog``)."""

from __future__ import annotations

from sqlalchemy import case, delete, func, select

from service.domain.model import Change, ChangeBounds
from service.stores.ledger.core import LedgerCore
from service.stores.ledger.statements import CHANGES_AFTER
from service.stores.tables import change_horizon, changes


class SqlChangeLog(LedgerCore):
    """The change log, numbered by the database in commit order (``ChangeLog``)."""

    def changes(self, after: int, limit: int = 1000) -> list[Change]:
        with self._db.read() as conn:
            rows = conn.execute(CHANGES_AFTER, {"after": after, "limit": limit})
            return [Change(*row) for row in rows]

    def change_bounds(self) -> ChangeBounds:
        query = select(
            func.coalesce(select(func.max(change_horizon.c.horizon)).scalar_subquery(), 0),
            func.coalesce(select(func.max(changes.c.seq)).scalar_subquery(), 0),
        )
        with self._db.read() as conn:
            horizon, latest = conn.execute(query).one()
        return ChangeBounds(horizon=int(horizon), latest=max(int(horizon), int(latest)))

    def trim_changes(self, before: float) -> int:
        """Drop the changes made before ``before``, and any numbered below one of them: the
        log stays whole above the horizon."""
        with self._db.write() as conn:
            last = conn.execute(
                select(func.max(changes.c.seq)).where(changes.c.at < before)
            ).scalar_one()
            if last is None:
                return 0
            dropped = conn.execute(delete(changes).where(changes.c.seq <= last)).rowcount
            raise_horizon = self._db.insert(change_horizon).values(one=1, horizon=last)
            conn.execute(
                raise_horizon.on_conflict_do_update(
                    index_elements=[change_horizon.c.one],
                    set_={
                        "horizon": case(
                            (
                                raise_horizon.excluded.horizon > change_horizon.c.horizon,
                                raise_horizon.excluded.horizon,
                            ),
                            else_=change_horizon.c.horizon,
                        )
                    },
                )
            )
        return int(dropped)
