"""The history of a namespace's removed entries, for its export and import
(``NamespaceEntries``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple

from sqlalchemy import exists, select

from service.domain.entries import RemovedEntry, entry_key
from service.stores.ledger.core import HISTORY, LedgerCore, past
from service.stores.ledger.statements import E
from service.stores.tables import history


class SqlRemovedEntries(LedgerCore):
    """Entries removed for good: a history and no entry."""

    def removed_page(self, namespace: str, after: str, limit: int) -> list[RemovedEntry]:
        """Keys of the namespace that have a history and no entry, after ``after``, by key,
        read through the history's index."""
        h = history.c
        query = (
            select(h.key)
            .where(
                h.key > entry_key(namespace, after),
                h.key < past(namespace),
                ~exists().where(E.key == h.key),
            )
            .group_by(h.key)
            .order_by(h.key)
            .limit(limit)
        )
        with self._db.snapshot() as conn:
            keys = list(conn.execute(query).scalars())
            events = self._histories(conn, keys)
        return [RemovedEntry(key, tuple(events[key])) for key in keys]

    def restore_removed(self, items: Sequence[RemovedEntry]) -> int:
        latest = {i.key: i for i in items}
        if not latest:
            return 0
        with self._db.write() as conn:
            held = set(self._present(conn, list(latest)))
            gone = [key for key in latest if key not in held]
            before = self._histories(conn, gone)
            written = [k for k in gone if tuple(before.get(k, ())) != latest[k].history]
            self._delete(conn, history, written)
            self._db.insert_rows(
                conn,
                history,
                HISTORY,
                [(k, *astuple(h)) for k in written for h in latest[k].history],
            )
        return len(written)
