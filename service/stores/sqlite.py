"""SQLite connections as the ledger and the catalog use them."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path


def open_durable(path: Path, schema: str) -> sqlite3.Connection:
    """A connection in autocommit mode, WAL with fsync on every commit, foreign keys on,
    shared across threads (callers serialise access with a lock)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    db.executescript(schema)
    return db


class SqliteFile:
    """A store kept in one SQLite file: its connection, and the lock that serialises it."""

    def __init__(self, path: Path, schema: str) -> None:
        self._db = open_durable(path, schema)
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()
