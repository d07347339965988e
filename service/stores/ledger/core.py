"""What every part of the SQL ledger shares: its database, clock and statements, and the
steps its writes and reads have in common."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, Table

from service.domain.entries import Chunk, HistoryEvent, StoredEntry, Tier
from service.stores.database import Database
from service.stores.entry_rows import row_entry, unpack
from service.stores.ledger.statements import Statements
from service.stores.tables import changes

HISTORY = ("key", "at", "action", "actor", "detail")
"""The columns a history event is written to."""


class LedgerCore:
    """Entries keyed by ``namespace:id``, in a database of one process or of a cluster.

    ``clock`` times what is recorded without a time given (history, changes)."""

    def __init__(self, database: Database, *, clock: Callable[[], float] = time.time) -> None:
        self._db = database
        self._clock = clock
        self._sql = Statements(database)

    def _keys(self, keys: Iterable[str]) -> dict[str, Any]:
        return {"keys": self._db.key_list(list(keys))}

    def _present(self, conn: Connection, keys: Sequence[str]) -> list[str]:
        """The given keys that have a row, in the given order."""
        found = set(conn.scalars(self._sql.present, self._keys(keys))) if keys else set()
        return [key for key in keys if key in found]

    def _present_states(
        self, conn: Connection, keys: Sequence[str]
    ) -> dict[str, tuple[str, Tier, bool]]:
        """The given keys that have a row (locked, as ``_present``), each with its state,
        tier and archived flag."""
        if not keys:
            return {}
        found = conn.execute(self._sql.present_states, self._keys(keys))
        return {key: (state, tier, bool(archived)) for key, state, tier, archived in found}

    def _append(self, conn: Connection, keys: Iterable[str], at: float) -> None:
        """Log a change of each key (once), in the caller's transaction."""
        unique = list(dict.fromkeys(keys))
        if unique:
            self._db.order_changes(conn)
            self._db.insert_rows(conn, changes, ("key", "at"), [(k, at) for k in unique])

    def _delete(self, conn: Connection, table: Table, keys: Sequence[str]) -> None:
        if keys:
            conn.execute(self._sql.delete[table], self._keys(keys))

    def _set_state(self, conn: Connection, keys: Sequence[str], state: str) -> None:
        if keys:
            conn.execute(self._sql.set_state, {**self._keys(keys), "state": state})

    def _histories(self, conn: Connection, keys: Sequence[str]) -> dict[str, list[HistoryEvent]]:
        found: dict[str, list[HistoryEvent]] = {}
        if keys:
            for key, *event in conn.execute(self._sql.histories, self._keys(keys)):
                found.setdefault(key, []).append(HistoryEvent(*event))
        return found

    def _live_rows(self, conn: Connection, keys: Sequence[str]) -> list[Any]:
        return list(conn.execute(self._sql.live_rows, self._keys(keys))) if keys else []

    def _hydrate(self, conn: Connection, rows: Sequence[Any]) -> dict[str, StoredEntry]:
        """Entries of ``rows`` (holding the ``FIELDS``) with their chunks, by key."""
        found: dict[str, list[Chunk]] = {row.key: [] for row in rows}
        if found:
            for key, number, text, vector in conn.execute(self._sql.chunks_of, self._keys(found)):
                found[key].append(Chunk(key, number, text, unpack(vector)))
        return {
            row.key: StoredEntry(
                row_entry(row._mapping),
                tuple(sorted(found[row.key], key=lambda c: c.number)),
                row.tokens,
            )
            for row in rows
        }


def past(namespace: str) -> str:
    """The first key past every key of the namespace: its name and the character after the
    colon (namespaces have no colon, and keys compare byte by byte)."""
    return f"{namespace};"
