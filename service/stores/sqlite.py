"""SQLite connections as the ledger, the catalog and the interaction log use them."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from service.stores.migrations import SqliteStep, migrate_sqlite

KEYS_PER_QUERY = 500
"""Keys bound in one ``IN (...)`` list, well under SQLite's limit on a statement's
variables (999 before SQLite 3.32)."""


def open_durable(
    path: Path, schema: str, steps: Mapping[int, SqliteStep] | None = None
) -> sqlite3.Connection:
    """A connection in autocommit mode, WAL with fsync on every commit, foreign keys on,
    rows readable by column name, shared across threads (callers serialise access with a
    lock); the file migrated to the latest version of ``schema`` (as in
    ``service.stores.migrations``: ``sqlite/ledger``, ...)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    migrate_sqlite(db, schema, steps)
    return db


def select_in(
    db: sqlite3.Connection, sql: str, keys: Sequence[str], *, size: int = KEYS_PER_QUERY
) -> Iterator[sqlite3.Row]:
    """The rows of ``sql`` for every key in ``keys``: ``{keys}`` in ``sql`` stands for the
    ``?`` list of an ``IN (...)``; one query per ``size`` keys, so any number of keys fits.
    Rows come query by query, so an ``ORDER BY`` holds within each ``size`` keys only."""
    for start in range(0, len(keys), size):
        part = list(keys[start : start + size])
        yield from db.execute(sql.format(keys=",".join("?" * len(part))), part)


class Transaction:
    """``with Transaction(db):`` runs the block in one write transaction, rolled back if
    the block raises."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if kind else "COMMIT")


class SqliteFile:
    """A store kept in one SQLite file: its connection, and the lock that serialises it."""

    def __init__(
        self, path: Path, schema: str, steps: Mapping[int, SqliteStep] | None = None
    ) -> None:
        self._db = open_durable(path, schema, steps)
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()
