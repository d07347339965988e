"""What the ledger holds, listed for the lifecycle jobs and counted for the status
(``Inventory``)."""

from __future__ import annotations

from sqlalchemy import select

from service.domain.entries import Entry
from service.domain.model import StoredCounts
from service.stores.entry_rows import row_entry
from service.stores.ledger.core import LedgerCore
from service.stores.ledger.statements import ENTRY, LIVE, STATS, E


class SqlInventory(LedgerCore):
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
        """Keys of one tier's entries, by expiry or age, oldest first; the lifecycle jobs'
        worklists."""
        query = select(E.key).where(E.tier == tier, E.archived == archived, LIVE)
        if exclude_kind is not None:
            query = query.where(E.kind != exclude_kind)
        if expires_before is not None:
            query = query.where(E.expires_at.is_not(None), E.expires_at <= expires_before)
        if older_than is not None:
            query = query.where(E.timestamp < older_than)
        with self._db.read() as conn:
            return list(conn.scalars(query.order_by(E.timestamp, E.key).limit(limit)))

    def dated(
        self, namespace: str, tier: str, start: float, end: float, *, archived: bool
    ) -> list[Entry]:
        """The live entries of one namespace and tier dated in ``[start, end)``, archived or
        not as asked, oldest first, without their chunks."""
        query = (
            select(*ENTRY)
            .where(
                E.tier == tier,
                E.archived == archived,
                E.timestamp >= start,
                E.timestamp < end,
                E.namespace == namespace,
                LIVE,
            )
            .order_by(E.timestamp, E.key)
        )
        with self._db.read() as conn:
            return [row_entry(row._mapping) for row in conn.execute(query)]

    def stats(self) -> list[StoredCounts]:
        """What is held per namespace, tier and archived or not."""
        with self._db.read() as conn:
            rows = conn.execute(STATS).all()
        return [
            StoredCounts(ns, tier, bool(archived), *(int(n) for n in counts))
            for ns, tier, archived, *counts in rows
        ]
