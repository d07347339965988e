"""The ledger: SQLite, the source of truth for entries, their state and their vectors."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import groupby
from pathlib import Path

from service.domain.models import (
    Change,
    ChangeBounds,
    Chunk,
    Entry,
    HistoryEvent,
    Quarantined,
    StoredEntry,
)
from service.domain.similarity import Matrix
from service.stores.ledger_schema import (
    COLUMNS,
    LIVE,
    add_missing_columns,
    entry_values,
    matrix,
    pack,
    row_entry,
    unpack,
)
from service.stores.sqlite import SqliteFile, Transaction, select_in

_VALUES = ", ".join("?" * len(COLUMNS.split(", ")))


class SqliteLedger(SqliteFile):
    """Entries keyed by ``namespace:id``, written in WAL mode with full fsync.

    ``clock`` times what is recorded without a time given (history, changes)."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        super().__init__(path, "sqlite/ledger", {1: add_missing_columns})
        self._clock = clock

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
        rows = [entry_values(s) for s in stored]
        chunks = [(c.key, c.number, c.text, pack(c.vector)) for s in stored for c in s.chunks]
        with self._lock, Transaction(self._db):
            keys = [s.entry.key for s in stored]
            existing = set(self._present(keys))
            self._db.executemany("DELETE FROM chunks WHERE key = ?", [(k,) for k in keys])
            self._db.executemany("DELETE FROM quarantine WHERE key = ?", [(k,) for k in keys])
            self._db.executemany(
                f"INSERT OR REPLACE INTO entries ({COLUMNS}, state) VALUES ({_VALUES}, 'pending')",
                rows,
            )
            now = self._clock() if at is None else at
            self._db.executemany(
                "INSERT INTO history VALUES (?,?,?,?)",
                [
                    (k, now, action or ("updated" if k in existing else "created"), actor)
                    for k in keys
                ],
            )
            self._db.executemany("INSERT INTO chunks VALUES (?,?,?,?)", chunks)
            self._append(keys, now)

    def mark_synced(self, keys: Iterable[str]) -> None:
        self._set_state(list(keys), "synced")

    def quarantine(self, reasons: Mapping[str, str], *, at: float) -> None:
        with self._lock, Transaction(self._db):
            self._append(self._present(list(reasons)), at)
            self._db.executemany(
                "UPDATE entries SET state = 'quarantined' WHERE key = ?", [(k,) for k in reasons]
            )
            self._db.executemany(
                "INSERT OR REPLACE INTO quarantine VALUES (?, ?, ?)",
                [(k, reason, at) for k, reason in reasons.items()],
            )

    def quarantined(self, limit: int = 1000) -> list[Quarantined]:
        with self._lock:
            rows = self._db.execute(
                "SELECT q.key, q.reason, q.at FROM quarantine q JOIN entries e ON e.key = q.key "
                "WHERE e.state = 'quarantined' ORDER BY q.at, q.key LIMIT ?",
                (limit,),
            ).fetchall()
        return [Quarantined(row["key"], row["reason"], row["at"]) for row in rows]

    def mark_deleting(self, keys: Sequence[str]) -> list[str]:
        with self._lock, Transaction(self._db):
            existing = self._present(keys)
            self._db.executemany(
                "UPDATE entries SET state = 'deleting' WHERE key = ?", [(k,) for k in existing]
            )
            self._append(existing, self._clock())
        return existing

    def remove(self, keys: Sequence[str], *, actor: str = "", at: float | None = None) -> None:
        now = self._clock() if at is None else at
        with self._lock, Transaction(self._db):
            self._append(self._present(keys), now)
            self._db.executemany("DELETE FROM entries WHERE key = ?", [(k,) for k in keys])
            self._db.executemany("DELETE FROM quarantine WHERE key = ?", [(k,) for k in keys])
            self._db.executemany(
                "INSERT INTO history VALUES (?,?,?,?)", [(k, now, "deleted", actor) for k in keys]
            )

    def history(self, key: str) -> list[HistoryEvent]:
        with self._lock:
            rows = self._db.execute(
                "SELECT at, action, actor FROM history WHERE key = ? ORDER BY at, rowid", (key,)
            ).fetchall()
        return [HistoryEvent(row["at"], row["action"], row["actor"]) for row in rows]

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
        sql = f"SELECT key FROM entries WHERE tier = ? AND archived = ? AND {LIVE}"
        args: list[object] = [tier, int(archived)]
        if expires_before is not None:
            sql += " AND expires_at IS NOT NULL AND expires_at <= ?"
            args.append(expires_before)
        if older_than is not None:
            sql += " AND timestamp < ?"
            args.append(older_than)
        with self._lock:
            rows = self._db.execute(sql + " LIMIT ?", [*args, limit]).fetchall()
        return [row["key"] for row in rows]

    def missing_vectors(self, limit: int = 500) -> list[str]:
        """Keys of tier A and C entries written while no model was loaded."""
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT e.key FROM entries e JOIN chunks c ON c.key = e.key "
                f"WHERE e.tier IN ('A', 'C') AND c.vector IS NULL AND e.{LIVE} "
                "LIMIT ?",
                (limit,),
            ).fetchall()
        return [row["key"] for row in rows]

    def stats(self) -> list[tuple[str, str, bool, int, int, int, int]]:
        """Per (namespace, tier, archived): entries, vectors, tokens embedded, tokens."""
        with self._lock:
            rows = self._db.execute(
                "SELECT e.namespace, e.tier, e.archived, COUNT(*) AS entries, "
                "SUM(COALESCE(v.n, 0)) AS vectors, "
                "SUM(CASE WHEN v.n > 0 THEN e.tokens ELSE 0 END) AS embedded, "
                "SUM(e.tokens) AS tokens "
                "FROM entries e LEFT JOIN (SELECT key, COUNT(*) AS n FROM chunks "
                "WHERE vector IS NOT NULL GROUP BY key) v ON v.key = e.key "
                f"WHERE e.{LIVE} GROUP BY e.namespace, e.tier, e.archived"
            ).fetchall()
        return [
            (
                r["namespace"],
                r["tier"],
                bool(r["archived"]),
                r["entries"],
                r["vectors"],
                r["embedded"],
                r["tokens"],
            )
            for r in rows
        ]

    def vector_count(self) -> int:
        """Chunks the vector index should hold: those of live tier A and C entries."""
        with self._lock:
            row = self._db.execute(
                "SELECT COUNT(*) AS n FROM chunks c JOIN entries e ON e.key = c.key "
                "WHERE e.tier IN ('A', 'C') AND e.archived = 0 AND c.vector IS NOT NULL "
                f"AND e.{LIVE}"
            ).fetchone()
        return int(row["n"])

    def _present(self, keys: Sequence[str]) -> list[str]:
        """The given keys that have a row, in the given order."""
        found = {
            row["key"]
            for row in select_in(self._db, "SELECT key FROM entries WHERE key IN ({keys})", keys)
        }
        return [key for key in keys if key in found]

    def last_in_thread(self, namespace: str, thread: str) -> Entry | None:
        """The entry of the thread written last."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {COLUMNS} FROM entries WHERE namespace = ? AND thread = ? "
                f"AND {LIVE} ORDER BY rowid DESC LIMIT 1",
                (namespace, thread),
            ).fetchone()
        return None if row is None else row_entry(row)

    def get(self, keys: Sequence[str]) -> dict[str, StoredEntry]:
        with self._lock:
            return self._hydrate(self._live_rows(keys))

    def passages(self, keys: Sequence[str]) -> dict[str, tuple[Entry, tuple[str, ...]]]:
        """Live entries with their chunk texts, in order; no vector is read."""
        with self._lock:
            rows = self._live_rows(keys)
            texts: dict[str, list[str]] = {row["key"]: [] for row in rows}
            for c in select_in(
                self._db,
                "SELECT key, text FROM chunks WHERE key IN ({keys}) ORDER BY key, number",
                list(texts),
            ):
                texts[c["key"]].append(c["text"])
        return {row["key"]: (row_entry(row), tuple(texts[row["key"]])) for row in rows}

    def vectors(self, keys: Sequence[str]) -> dict[str, Matrix]:
        """The chunk vectors of the entries that have them, without the rest of the entry:
        each entry's blobs joined into one float32 matrix, no float made a Python object."""
        found: dict[str, Matrix] = {}
        with self._lock:
            rows = select_in(
                self._db,
                "SELECT key, vector FROM chunks WHERE key IN ({keys}) "
                "AND vector IS NOT NULL ORDER BY key, number",
                keys,
            )
            for key, group in groupby(rows, key=lambda row: row["key"]):
                found[key] = matrix(row["vector"] for row in group)
        return found

    def unsynced(self) -> tuple[list[StoredEntry], list[str]]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {COLUMNS} FROM entries WHERE state = 'pending'"
            ).fetchall()
            pending = list(self._hydrate(rows).values())
            deleting = [
                row["key"]
                for row in self._db.execute("SELECT key FROM entries WHERE state = 'deleting'")
            ]
        return pending, deleting

    def scan(self, batch: int = 500) -> Iterator[list[StoredEntry]]:
        after = ""
        while True:
            with self._lock:
                rows = self._db.execute(
                    f"SELECT {COLUMNS} FROM entries WHERE key > ? AND {LIVE} ORDER BY key LIMIT ?",
                    (after, batch),
                ).fetchall()
                if not rows:
                    return
                hydrated = list(self._hydrate(rows).values())
            after = rows[-1]["key"]
            yield hydrated

    def count(self) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT tier, COUNT(*) AS n FROM entries WHERE {LIVE} GROUP BY tier"
            ).fetchall()
        return {row["tier"]: row["n"] for row in rows}

    def changes(self, after: int, limit: int = 1000) -> list[Change]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, key, at FROM changes WHERE seq > ? ORDER BY seq LIMIT ?",
                (after, limit),
            ).fetchall()
        return [Change(row["seq"], row["key"], row["at"]) for row in rows]

    def change_bounds(self) -> ChangeBounds:
        with self._lock:
            row = self._db.execute(
                "SELECT h.horizon, MAX(h.horizon, COALESCE((SELECT MAX(seq) FROM changes), 0)) "
                "FROM change_horizon h"
            ).fetchone()
        return ChangeBounds(horizon=row[0], latest=row[1])

    def trim_changes(self, before: float) -> int:
        """Drop the changes made before ``before``, and any numbered below one of them: the
        log stays whole above the horizon."""
        with self._lock, Transaction(self._db):
            row = self._db.execute("SELECT MAX(seq) FROM changes WHERE at < ?", (before,))
            last = row.fetchone()[0]
            if last is None:
                return 0
            dropped = self._db.execute("DELETE FROM changes WHERE seq <= ?", (last,)).rowcount
            self._db.execute("UPDATE change_horizon SET horizon = MAX(horizon, ?)", (last,))
        return int(dropped)

    def _append(self, keys: Iterable[str], at: float) -> None:
        """Log a change of each key (once), in the caller's transaction."""
        self._db.executemany(
            "INSERT INTO changes (key, at) VALUES (?, ?)", [(k, at) for k in dict.fromkeys(keys)]
        )

    def _set_state(self, keys: list[str], state: str) -> None:
        if not keys:
            return
        with self._lock, Transaction(self._db):
            self._db.executemany(
                "UPDATE entries SET state = ? WHERE key = ?", [(state, k) for k in keys]
            )

    def _live_rows(self, keys: Sequence[str]) -> list[sqlite3.Row]:
        """The ``COLUMNS`` of the live entries among ``keys``."""
        sql = f"SELECT {COLUMNS} FROM entries WHERE key IN ({{keys}}) AND {LIVE}"
        return list(select_in(self._db, sql, keys))

    def _hydrate(self, rows: list[sqlite3.Row]) -> dict[str, StoredEntry]:
        """Entries of ``rows`` (read with ``COLUMNS``) with their chunks, by key."""
        keys = [row["key"] for row in rows]
        chunks: dict[str, list[Chunk]] = {k: [] for k in keys}
        for c in select_in(
            self._db,
            "SELECT key, number, text, vector FROM chunks WHERE key IN ({keys}) "
            "ORDER BY key, number",
            keys,
        ):
            chunks[c["key"]].append(Chunk(c["key"], c["number"], c["text"], unpack(c["vector"])))
        return {
            row["key"]: StoredEntry(row_entry(row), tuple(chunks[row["key"]]), row["tokens"])
            for row in rows
        }
