"""The ledger: SQLite, the source of truth for entries, their state and their vectors."""

from __future__ import annotations

import json
import sqlite3
import time
from array import array
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from service.domain.models import Chunk, Entry, HistoryEvent, StoredEntry
from service.stores.sqlite import SqliteFile

SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY,
    id TEXT NOT NULL,
    namespace TEXT NOT NULL,
    tier TEXT NOT NULL,
    text TEXT NOT NULL,
    speaker TEXT,
    role TEXT,
    chain_type TEXT,
    tags TEXT NOT NULL,
    timestamp REAL NOT NULL,
    expires_at REAL,
    metadata TEXT NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0,
    tokens INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL,
    kind TEXT NOT NULL DEFAULT 'memory',
    type TEXT,
    confidence REAL,
    variants TEXT NOT NULL DEFAULT '[]',
    thread TEXT,
    context TEXT
);
CREATE INDEX IF NOT EXISTS entries_tier_time ON entries(tier, archived, timestamp);
CREATE INDEX IF NOT EXISTS entries_state ON entries(state) WHERE state != 'synced';
CREATE INDEX IF NOT EXISTS entries_expiry ON entries(expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS chunks (
    key TEXT NOT NULL REFERENCES entries(key) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    text TEXT NOT NULL,
    vector BLOB,
    PRIMARY KEY (key, number)
);
CREATE TABLE IF NOT EXISTS history (
    key TEXT NOT NULL,
    at REAL NOT NULL,
    action TEXT NOT NULL,
    actor TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS history_key ON history(key, at);
"""

_COLUMNS = (
    "key, id, namespace, tier, text, speaker, role, chain_type, tags, timestamp, "
    "expires_at, metadata, archived, kind, type, confidence, variants, thread, context, tokens"
)
_TOKENS = 19
"""Position of ``tokens`` in ``_COLUMNS``."""

ADDED_COLUMNS = {
    "kind": "TEXT NOT NULL DEFAULT 'memory'",
    "type": "TEXT",
    "confidence": "REAL",
    "variants": "TEXT NOT NULL DEFAULT '[]'",
    "thread": "TEXT",
    "context": "TEXT",
}
"""Columns added after the first release: a ledger written before gets them at open."""


def _add_missing_columns(db: sqlite3.Connection) -> None:
    present = {row[1] for row in db.execute("PRAGMA table_info(entries)")}
    for name, declaration in ADDED_COLUMNS.items():
        if name not in present:
            db.execute(f"ALTER TABLE entries ADD COLUMN {name} {declaration}")
    db.execute(
        "CREATE INDEX IF NOT EXISTS entries_thread ON entries(namespace, thread) "
        "WHERE thread IS NOT NULL"
    )


class SqliteLedger(SqliteFile):
    """Entries keyed by ``namespace:id``, written in WAL mode with full fsync."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, SCHEMA)
        _add_missing_columns(self._db)

    def put(
        self,
        stored: Sequence[StoredEntry],
        *,
        actor: str = "",
        action: str | None = None,
        at: float | None = None,
    ) -> None:
        """Record entries as pending indexing, and in each one's history: ``action``, or
        created / updated as the key is new or not."""
        rows = [(*_entry_row(s.entry), s.tokens) for s in stored]
        chunks = [(c.key, c.number, c.text, _pack(c.vector)) for s in stored for c in s.chunks]
        with self._lock, self._transaction():
            keys = [s.entry.key for s in stored]
            existing = set(self._present(keys))
            self._db.executemany("DELETE FROM chunks WHERE key = ?", [(k,) for k in keys])
            self._db.executemany(
                f"INSERT OR REPLACE INTO entries ({_COLUMNS}, state) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'pending')",
                rows,
            )
            now = time.time() if at is None else at
            self._db.executemany(
                "INSERT INTO history VALUES (?,?,?,?)",
                [
                    (k, now, action or ("updated" if k in existing else "created"), actor)
                    for k in keys
                ],
            )
            self._db.executemany("INSERT INTO chunks VALUES (?,?,?,?)", chunks)

    def mark_synced(self, keys: Iterable[str]) -> None:
        self._set_state(list(keys), "synced")

    def mark_deleting(self, keys: Sequence[str]) -> list[str]:
        existing = self._existing(keys)
        self._set_state(existing, "deleting")
        return existing

    def remove(self, keys: Sequence[str], *, actor: str = "", at: float | None = None) -> None:
        with self._lock, self._transaction():
            self._db.executemany("DELETE FROM entries WHERE key = ?", [(k,) for k in keys])
            now = time.time() if at is None else at
            self._db.executemany(
                "INSERT INTO history VALUES (?,?,?,?)", [(k, now, "deleted", actor) for k in keys]
            )

    def history(self, key: str) -> list[HistoryEvent]:
        with self._lock:
            rows = self._db.execute(
                "SELECT at, action, actor FROM history WHERE key = ? ORDER BY at, rowid", (key,)
            ).fetchall()
        return [HistoryEvent(*row) for row in rows]

    def select_keys(
        self,
        *,
        tier: str,
        archived: bool = False,
        expires_before: float | None = None,
        older_than: float | None = None,
        limit: int = 1000,
    ) -> list[str]:
        """Keys of one tier's entries, by expiry or age; the lifecycle jobs' worklists."""
        sql = "SELECT key FROM entries WHERE tier = ? AND archived = ? AND state != 'deleting'"
        args: list[object] = [tier, int(archived)]
        if expires_before is not None:
            sql += " AND expires_at IS NOT NULL AND expires_at <= ?"
            args.append(expires_before)
        if older_than is not None:
            sql += " AND timestamp < ?"
            args.append(older_than)
        with self._lock:
            rows = self._db.execute(sql + " LIMIT ?", [*args, limit]).fetchall()
        return [r[0] for r in rows]

    def missing_vectors(self, limit: int = 500) -> list[str]:
        """Keys of tier A and C entries written while no model was loaded."""
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT e.key FROM entries e JOIN chunks c ON c.key = e.key "
                "WHERE e.tier IN ('A', 'C') AND c.vector IS NULL AND e.state != 'deleting' "
                "LIMIT ?",
                (limit,),
            ).fetchall()
        return [r[0] for r in rows]

    def stats(self) -> list[tuple[str, str, bool, int, int, int, int]]:
        """Per (namespace, tier, archived): entries, vectors, tokens embedded, tokens."""
        with self._lock:
            rows = self._db.execute(
                "SELECT e.namespace, e.tier, e.archived, COUNT(*), SUM(COALESCE(v.n, 0)), "
                "SUM(CASE WHEN v.n > 0 THEN e.tokens ELSE 0 END), SUM(e.tokens) "
                "FROM entries e LEFT JOIN (SELECT key, COUNT(*) AS n FROM chunks "
                "WHERE vector IS NOT NULL GROUP BY key) v ON v.key = e.key "
                "WHERE e.state != 'deleting' GROUP BY e.namespace, e.tier, e.archived"
            ).fetchall()
        return [(r[0], r[1], bool(r[2]), *r[3:]) for r in rows]

    def vector_count(self) -> int:
        """Chunks the vector index should hold: those of live tier A and C entries."""
        with self._lock:
            row = self._db.execute(
                "SELECT COUNT(*) FROM chunks c JOIN entries e ON e.key = c.key "
                "WHERE e.tier IN ('A', 'C') AND e.archived = 0 AND c.vector IS NOT NULL "
                "AND e.state != 'deleting'"
            ).fetchone()
        return int(row[0])

    def _present(self, keys: Sequence[str]) -> list[str]:
        """The given keys that have a row, in the given order: one query per 500 keys."""
        found: set[str] = set()
        for start in range(0, len(keys), 500):
            part = list(keys[start : start + 500])
            marks = ",".join("?" * len(part))
            found.update(
                row[0]
                for row in self._db.execute(f"SELECT key FROM entries WHERE key IN ({marks})", part)
            )
        return [key for key in keys if key in found]

    def last_in_thread(self, namespace: str, thread: str) -> Entry | None:
        """The entry of the thread written last."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM entries WHERE namespace = ? AND thread = ? "
                "AND state != 'deleting' ORDER BY rowid DESC LIMIT 1",
                (namespace, thread),
            ).fetchone()
        return None if row is None else _row_entry(row)

    def get(self, keys: Sequence[str]) -> dict[str, StoredEntry]:
        if not keys:
            return {}
        found: dict[str, StoredEntry] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = list(keys[start : start + 500])
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT {_COLUMNS} FROM entries WHERE key IN ({marks}) "
                    "AND state != 'deleting'",
                    part,
                ).fetchall()
                found.update(self._hydrate(rows))
        return found

    def vectors(self, keys: Sequence[str]) -> dict[str, list[tuple[float, ...]]]:
        """The chunk vectors of the entries that have them, without the rest of the entry."""
        found: dict[str, list[tuple[float, ...]]] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = list(keys[start : start + 500])
                marks = ",".join("?" * len(part))
                for key, blob in self._db.execute(
                    f"SELECT key, vector FROM chunks WHERE key IN ({marks}) "
                    "AND vector IS NOT NULL ORDER BY key, number",
                    part,
                ):
                    found.setdefault(key, []).append(_unpack(blob) or ())
        return found

    def unsynced(self) -> tuple[list[StoredEntry], list[str]]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM entries WHERE state = 'pending'"
            ).fetchall()
            pending = list(self._hydrate(rows).values())
            deleting = [
                r[0] for r in self._db.execute("SELECT key FROM entries WHERE state = 'deleting'")
            ]
        return pending, deleting

    def scan(self, batch: int = 500) -> Iterator[list[StoredEntry]]:
        after = ""
        while True:
            with self._lock:
                rows = self._db.execute(
                    f"SELECT {_COLUMNS} FROM entries WHERE key > ? AND state != 'deleting' "
                    "ORDER BY key LIMIT ?",
                    (after, batch),
                ).fetchall()
                if not rows:
                    return
                hydrated = list(self._hydrate(rows).values())
            after = rows[-1][0]
            yield hydrated

    def count(self) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute(
                "SELECT tier, COUNT(*) FROM entries WHERE state != 'deleting' GROUP BY tier"
            ).fetchall()
        return {tier: n for tier, n in rows}

    def _existing(self, keys: Sequence[str]) -> list[str]:
        with self._lock:
            return self._present(keys)

    def _set_state(self, keys: list[str], state: str) -> None:
        if not keys:
            return
        with self._lock, self._transaction():
            self._db.executemany(
                "UPDATE entries SET state = ? WHERE key = ?", [(state, k) for k in keys]
            )

    def _hydrate(self, rows: list[tuple]) -> dict[str, StoredEntry]:
        keys = [r[0] for r in rows]
        chunks: dict[str, list[Chunk]] = {k: [] for k in keys}
        marks = ",".join("?" * len(keys))
        for key, number, text, blob in self._db.execute(
            f"SELECT key, number, text, vector FROM chunks WHERE key IN ({marks}) "
            "ORDER BY key, number",
            keys,
        ):
            chunks[key].append(Chunk(key, number, text, _unpack(blob)))
        return {r[0]: StoredEntry(_row_entry(r), tuple(chunks[r[0]]), r[_TOKENS]) for r in rows}

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if kind else "COMMIT")


def _entry_row(e: Entry) -> tuple:
    return (
        e.key,
        e.id,
        e.namespace,
        e.tier,
        e.text,
        e.speaker,
        e.role,
        e.chain_type,
        json.dumps(list(e.tags)),
        e.timestamp,
        e.expires_at,
        json.dumps(dict(e.metadata)),
        int(e.archived),
        e.kind,
        e.type,
        e.confidence,
        json.dumps(list(e.variants)),
        e.thread,
        e.context,
    )


def _row_entry(r: tuple) -> Entry:
    return Entry(
        id=r[1],
        namespace=r[2],
        tier=r[3],
        text=r[4],
        speaker=r[5],
        role=r[6],
        chain_type=r[7],
        tags=tuple(json.loads(r[8])),
        timestamp=r[9],
        expires_at=r[10],
        metadata=json.loads(r[11]),
        archived=bool(r[12]),
        kind=r[13],
        type=r[14],
        confidence=r[15],
        variants=tuple(json.loads(r[16])),
        thread=r[17],
        context=r[18],
    )


def _pack(vector: tuple[float, ...] | None) -> bytes | None:
    return None if vector is None else array("f", vector).tobytes()


def _unpack(blob: bytes | None) -> tuple[float, ...] | None:
    if blob is None:
        return None
    values = array("f")
    values.frombytes(blob)
    return tuple(values)
