"""The ledger on Postgres: the entries a cluster of replicas shares, and its change log."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import groupby
from typing import Any

import psycopg
from psycopg.rows import DictRow

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
    entry_values,
    matrix,
    pack,
    row_entry,
    unpack,
)
from service.stores.postgres.ledger_sql import (
    APPEND_CHANGES,
    CHANGE_BOUNDS,
    CHUNK_TYPES,
    COPY_CHUNKS,
    COPY_STAGED,
    DRAW_WRITTEN,
    HISTORY_OF_PUT,
    HYDRATED,
    LOCK_CHANGES,
    LOCK_ROWS,
    PASSAGES,
    RAISE_HORIZON,
    STAGE,
    STAGED_TYPES,
    STATS,
    UPSERT_STAGED,
)
from service.stores.postgres.pool import Pool


class PostgresLedger:
    """Entries keyed by ``namespace:id`` in a database shared by every replica; reads and
    their order as ``SqliteLedger`` gives them. ``clock`` times what is recorded without a
    time given (history, changes)."""

    def __init__(self, pool: Pool, *, clock: Callable[[], float] = time.time) -> None:
        self._pool = pool
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
        created / updated as the key is new or not. A key given twice is written once, as
        given last."""
        if not stored:
            return
        now = self._clock() if at is None else at
        keys = [s.entry.key for s in stored]
        latest = list({s.entry.key: s for s in stored}.values())
        with self._pool.connection() as conn, conn.transaction():
            with conn.pipeline():
                conn.execute(STAGE)
                conn.execute(LOCK_ROWS, (keys,))
                conn.execute(
                    HISTORY_OF_PUT, {"keys": keys, "at": now, "action": action, "actor": actor}
                )
                conn.execute("DELETE FROM quarantine WHERE key = ANY(%s)", (keys,))
                drawn = conn.execute(DRAW_WRITTEN, (len(latest),))
            written = sorted(row["n"] for row in drawn.fetchall())
            with conn.cursor().copy(COPY_STAGED) as copy:
                copy.set_types(STAGED_TYPES)
                for s, n in zip(latest, written, strict=True):
                    copy.write_row((*entry_values(s), n))
            with conn.pipeline():
                conn.execute(UPSERT_STAGED)
                conn.execute("DELETE FROM chunks WHERE key = ANY(%s)", (keys,))
            with conn.cursor().copy(COPY_CHUNKS) as copy:
                copy.set_types(CHUNK_TYPES)
                for s in latest:
                    for c in s.chunks:
                        copy.write_row((c.key, c.number, c.text, pack(c.vector)))
            with conn.pipeline():
                self._append(conn, keys, now)

    def mark_synced(self, keys: Iterable[str]) -> None:
        wanted = list(keys)
        if wanted:
            with self._pool.connection() as conn:
                conn.execute("UPDATE entries SET state = 'synced' WHERE key = ANY(%s)", (wanted,))

    def quarantine(self, reasons: Mapping[str, str], *, at: float) -> None:
        if not reasons:
            return
        keys = list(reasons)
        with self._pool.connection() as conn, conn.transaction():
            found = conn.execute(
                "UPDATE entries SET state = 'quarantined' WHERE key = ANY(%s) RETURNING key",
                (keys,),
            ).fetchall()
            conn.execute(
                "INSERT INTO quarantine (key, reason, at) "
                "SELECT k, r, %s FROM unnest(%s::text[], %s::text[]) AS u(k, r) "
                "ON CONFLICT (key) DO UPDATE SET reason = EXCLUDED.reason, at = EXCLUDED.at",
                (at, keys, list(reasons.values())),
            )
            present = {row["key"] for row in found}
            self._append(conn, [k for k in keys if k in present], at)

    def quarantined(self, limit: int = 1000) -> list[Quarantined]:
        rows = self._query(
            "SELECT q.key, q.reason, q.at FROM quarantine q JOIN entries e ON e.key = q.key "
            "WHERE e.state = 'quarantined' ORDER BY q.at, q.key LIMIT %s",
            (limit,),
        )
        return [Quarantined(row["key"], row["reason"], row["at"]) for row in rows]

    def mark_deleting(self, keys: Sequence[str]) -> list[str]:
        if not keys:
            return []
        with self._pool.connection() as conn, conn.transaction():
            found = conn.execute(
                "UPDATE entries SET state = 'deleting' WHERE key = ANY(%s) RETURNING key",
                (list(keys),),
            ).fetchall()
            present = {row["key"] for row in found}
            existing = [k for k in keys if k in present]
            self._append(conn, existing, self._clock())
        return existing

    def remove(self, keys: Sequence[str], *, actor: str = "", at: float | None = None) -> None:
        if not keys:
            return
        now = self._clock() if at is None else at
        wanted = list(keys)
        with self._pool.connection() as conn, conn.transaction():
            found = conn.execute(
                "DELETE FROM entries WHERE key = ANY(%s) RETURNING key", (wanted,)
            ).fetchall()
            conn.execute("DELETE FROM quarantine WHERE key = ANY(%s)", (wanted,))
            conn.execute(
                "INSERT INTO history (key, at, action, actor) "
                "SELECT k, %s, 'deleted', %s FROM unnest(%s::text[]) WITH ORDINALITY AS u(k, n) "
                "ORDER BY n",
                (now, actor, wanted),
            )
            present = {row["key"] for row in found}
            self._append(conn, [k for k in wanted if k in present], now)

    def history(self, key: str) -> list[HistoryEvent]:
        rows = self._query(
            "SELECT at, action, actor FROM history WHERE key = %s ORDER BY at, id", (key,)
        )
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
        """Keys of one tier's entries, by expiry or age, oldest first; the lifecycle jobs'
        worklists."""
        sql = f"SELECT key FROM entries WHERE tier = %s AND archived = %s AND {LIVE}"
        args: list[object] = [tier, archived]
        if expires_before is not None:
            sql += " AND expires_at IS NOT NULL AND expires_at <= %s"
            args.append(expires_before)
        if older_than is not None:
            sql += " AND timestamp < %s"
            args.append(older_than)
        rows = self._query(sql + " ORDER BY timestamp, key LIMIT %s", [*args, limit])
        return [row["key"] for row in rows]

    def missing_vectors(self, limit: int = 500) -> list[str]:
        """Keys of tier A and C entries written while no model was loaded."""
        rows = self._query(
            "SELECT DISTINCT e.key FROM entries e JOIN chunks c ON c.key = e.key "
            f"WHERE e.tier IN ('A', 'C') AND c.vector IS NULL AND e.{LIVE} "
            "LIMIT %s",
            (limit,),
        )
        return [row["key"] for row in rows]

    def stats(self) -> list[tuple[str, str, bool, int, int, int, int]]:
        """Per (namespace, tier, archived): entries, vectors, tokens embedded, tokens."""
        return [
            (
                r["namespace"],
                r["tier"],
                r["archived"],
                r["entries"],
                r["vectors"],
                r["embedded"],
                r["tokens"],
            )
            for r in self._query(STATS)
        ]

    def vector_count(self) -> int:
        """Chunks the vector index should hold: those of live tier A and C entries."""
        rows = self._query(
            "SELECT COUNT(*) AS n FROM chunks c JOIN entries e ON e.key = c.key "
            "WHERE e.tier IN ('A', 'C') AND NOT e.archived AND c.vector IS NOT NULL "
            f"AND e.{LIVE}"
        )
        return int(rows[0]["n"])

    def last_in_thread(self, namespace: str, thread: str) -> Entry | None:
        """The entry of the thread written last."""
        rows = self._query(
            f"SELECT {COLUMNS} FROM entries WHERE namespace = %s AND thread = %s "
            f"AND {LIVE} ORDER BY written DESC LIMIT 1",
            (namespace, thread),
        )
        return row_entry(rows[0]) if rows else None

    def get(self, keys: Sequence[str]) -> dict[str, StoredEntry]:
        if not keys:
            return {}
        rows = self._query(HYDRATED.format(where=f"e.key = ANY(%s) AND e.{LIVE}"), (list(keys),))
        return _hydrate(rows)

    def passages(self, keys: Sequence[str]) -> dict[str, tuple[Entry, tuple[str, ...]]]:
        """Live entries with their chunk texts, in order; no vector is read."""
        if not keys:
            return {}
        rows = self._query(PASSAGES, (list(keys),))
        return {row["key"]: (row_entry(row), tuple(row["texts"])) for row in rows}

    def vectors(self, keys: Sequence[str]) -> dict[str, Matrix]:
        """The chunk vectors of the entries that have them, without the rest of the entry:
        each entry's vectors, read as bytes, joined into one float32 matrix."""
        if not keys:
            return {}
        rows = self._query(
            "SELECT key, vector FROM chunks WHERE key = ANY(%s) AND vector IS NOT NULL "
            "ORDER BY key, number",
            (list(keys),),
        )
        return {
            key: matrix(row["vector"] for row in group)
            for key, group in groupby(rows, key=lambda row: row["key"])
        }

    def unsynced(self) -> tuple[list[StoredEntry], list[str]]:
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            pending = conn.execute(
                HYDRATED.format(where="e.state = 'pending'") + " ORDER BY e.written",
                binary=True,
            ).fetchall()
            deleting = conn.execute(
                "SELECT key FROM entries WHERE state = 'deleting' ORDER BY written"
            ).fetchall()
        return list(_hydrate(pending).values()), [row["key"] for row in deleting]

    def scan(self, batch: int = 500) -> Iterator[list[StoredEntry]]:
        after = ""
        while True:
            rows = self._query(
                HYDRATED.format(where=f"e.key > %s AND e.{LIVE}") + " ORDER BY e.key LIMIT %s",
                (after, batch),
            )
            if not rows:
                return
            after = rows[-1]["key"]
            yield list(_hydrate(rows).values())

    def count(self) -> dict[str, int]:
        rows = self._query(f"SELECT tier, COUNT(*) AS n FROM entries WHERE {LIVE} GROUP BY tier")
        return {row["tier"]: row["n"] for row in rows}

    def changes(self, after: int, limit: int = 1000) -> list[Change]:
        rows = self._query(
            "SELECT seq, key, at FROM changes WHERE seq > %s ORDER BY seq LIMIT %s",
            (after, limit),
        )
        return [Change(row["seq"], row["key"], row["at"]) for row in rows]

    def change_bounds(self) -> ChangeBounds:
        row = self._query(CHANGE_BOUNDS)[0]
        return ChangeBounds(horizon=row["horizon"], latest=row["latest"])

    def trim_changes(self, before: float) -> int:
        """Drop the changes made before ``before``, and any numbered below one of them: the
        log stays whole above the horizon."""
        with self._pool.connection() as conn, conn.transaction():
            last = conn.execute(
                "SELECT MAX(seq) AS seq FROM changes WHERE at < %s", (before,)
            ).fetchall()[0]["seq"]
            if last is None:
                return 0
            dropped = conn.execute("DELETE FROM changes WHERE seq <= %s", (last,)).rowcount
            conn.execute(RAISE_HORIZON, (last,))
        return dropped

    def close(self) -> None:
        """Nothing of its own to release: the pool is closed by whoever opened it."""

    def _query(self, sql: str, args: Sequence[Any] | Mapping[str, Any] = ()) -> list[DictRow]:
        """The rows of one statement, read in binary (bytes as they are kept)."""
        with self._pool.connection() as conn:
            return conn.execute(sql, args or None, binary=True).fetchall()

    @staticmethod
    def _append(conn: psycopg.Connection[DictRow], keys: Iterable[str], at: float) -> None:
        """Log a change of each key (once), in the caller's transaction, under the lock that
        keeps change numbers committed in order (held until the transaction ends)."""
        unique = list(dict.fromkeys(keys))
        if unique:
            conn.execute(LOCK_CHANGES)
            conn.execute(APPEND_CHANGES, (at, unique))


def _hydrate(rows: list[DictRow]) -> dict[str, StoredEntry]:
    """Entries of rows read by ``HYDRATED``, with their chunks, by key."""
    found = {}
    for row in rows:
        numbers, texts, vectors = row["numbers"] or [], row["texts"] or [], row["vectors"] or []
        chunks = tuple(
            Chunk(row["key"], n, t, unpack(v))
            for n, t, v in zip(numbers, texts, vectors, strict=True)
        )
        found[row["key"]] = StoredEntry(row_entry(row), chunks, row["tokens"])
    return found
