"""What happened to entries and what ties them across time: histories, supersessions,
repeats (``History`` and ``Relations``)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, or_, select

from service.domain.entries import Entry, HistoryEvent, Supersession
from service.stores.ledger.core import LedgerCore
from service.stores.ledger.statements import LIVE, E, S
from service.stores.tables import history


class SqlRelations(LedgerCore):
    """``History`` and ``Relations``."""

    def history(self, key: str) -> list[HistoryEvent]:
        return self.histories([key]).get(key, [])

    def histories(self, keys: Sequence[str]) -> dict[str, list[HistoryEvent]]:
        """What happened to each entry of ``keys`` that has a history, oldest first."""
        with self._db.read() as conn:
            return self._histories(conn, keys)

    def superseded_between(
        self, namespace: str, start: float, end: float, limit: int = 500
    ) -> list[tuple[str, HistoryEvent]]:
        h = history.c
        query = (
            select(h.key, h.at, h.action, h.actor, h.detail)
            .where(
                # The keys of a namespace: from "ns:" up to "ns;" (";" follows ":").
                h.key >= f"{namespace}:",
                h.key < f"{namespace};",
                h.action == "superseded",
                h.at >= start,
                h.at < end,
            )
            .order_by(h.at, h.id)
            .limit(limit)
        )
        with self._db.read() as conn:
            return [(key, HistoryEvent(*event)) for key, *event in conn.execute(query)]

    def supersessions(self, keys: Sequence[str]) -> list[Supersession]:
        """The supersessions an entry of ``keys`` takes part in, older or newer, oldest
        first."""
        if not keys:
            return []
        query = (
            select(S.key, S.by_key, S.at, S.actor)
            .where(or_(self._db.key_in(S.key), self._db.key_in(S.by_key)))
            .order_by(S.at, S.key, S.by_key)
        )
        with self._db.read() as conn:
            return [Supersession(*row) for row in conn.execute(query, self._keys(keys))]

    def duplicates(self, wanted: Sequence[Entry]) -> dict[str, str]:
        """For each entry of ``wanted`` that repeats a live entry of its namespace (same
        tier, speaker and normalised text) under another key, that entry's id (the one
        written first)."""
        found: dict[str, str] = {}
        by_print: dict[tuple[str, str], list[Entry]] = {}
        for e in wanted:
            by_print.setdefault((e.namespace, e.fingerprint), []).append(e)
        if not by_print:
            return found
        query = (
            select(E.namespace, E.fingerprint, E.key, E.id)
            .where(
                E.namespace == bindparam("namespace"),
                E.fingerprint == bindparam("fingerprint"),
                LIVE,
            )
            .order_by(E.written)
        )
        with self._db.read() as conn:
            for (namespace, digest), mine in by_print.items():
                rows = conn.execute(query, {"namespace": namespace, "fingerprint": digest}).all()
                for e in mine:
                    other = next((row.id for row in rows if row.key != e.key), None)
                    if other is not None:
                        found[e.key] = other
        return found
