"""Who of the processes sharing durable stores does what: the one process of an embedded
service (threading locks), or the replicas sharing one Postgres database (session advisory
locks, which last while the connection that took them lives, and end with it)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import psycopg
from psycopg.rows import DictRow, dict_row

from service.stores.database import lock_key
from service.stores.postgres import CONNECT_TIMEOUT, KEEPALIVES


class LocalCoordination:
    """For the embedded service, which shares its files with no other process."""

    def __init__(self) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def lead(self) -> bool:
        return True

    @contextmanager
    def job_lock(self, job: str) -> Iterator[bool]:
        with self._guard:
            lock = self._locks.setdefault(job, threading.Lock())
        held = lock.acquire(blocking=False)
        try:
            yield held
        finally:
            if held:
                lock.release()

    def close(self) -> None:
        pass


log = logging.getLogger("strata")

LEADER_LOCK = lock_key("leader")


class PostgresCoordination:
    """Leadership held on a connection of its own, kept open; each job's lock on another,
    held for the block."""

    def __init__(self, url: str, *, name: str = "strata") -> None:
        self._url = url
        self._name = name
        self._conn: psycopg.Connection[DictRow] | None = None
        self._leading = False
        self._guard = threading.Lock()

    def lead(self) -> bool:
        """True while this process holds the leader lock. Every call checks the connection
        holding it: once it is found dead, this call returns False (leadership was lost
        with it) and a later call tries again on a new connection."""
        with self._guard:
            if self._conn is not None and self._leading:
                if self._alive(self._conn):
                    return True
                self._drop()
                log.warning("lost the leadership: its database connection is gone")
                return False
            try:
                if self._conn is None or self._conn.closed:
                    self._conn = connect(self._url, application_name=f"{self._name} leader")
                self._leading = _try_lock(self._conn, LEADER_LOCK)
            except psycopg.Error as exc:
                log.warning("could not try for the leadership: %s", exc)
                self._drop()
            return self._leading

    @contextmanager
    def job_lock(self, job: str) -> Iterator[bool]:
        key = lock_key(f"job:{job}")
        with connect(self._url, application_name=f"{self._name} job {job}") as conn:
            held = _try_lock(conn, key)
            try:
                yield held
            finally:
                if held and not conn.closed:
                    # If the connection is gone, its lock went with it.
                    with suppress(psycopg.Error):
                        conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    def close(self) -> None:
        """Give up the leadership (if held): unlocked first, so another replica may lead as
        soon as this returns (a closed session's locks go only when its backend exits)."""
        with self._guard:
            if self._conn is not None and self._leading:
                # A connection already gone has taken its locks with it.
                with suppress(psycopg.Error):
                    self._conn.execute("SELECT pg_advisory_unlock_all()")
            self._drop()

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        self._leading = False

    @staticmethod
    def _alive(conn: psycopg.Connection[DictRow]) -> bool:
        try:
            conn.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True


def _try_lock(conn: psycopg.Connection[DictRow], key: int) -> bool:
    row = conn.execute("SELECT pg_try_advisory_lock(%s) AS held", (key,)).fetchone()
    return bool(row and row["held"])


def connect(url: str, **options: Any) -> psycopg.Connection[DictRow]:
    """A connection of its own to ``url``, in autocommit mode."""
    return psycopg.connect(
        url,
        autocommit=True,
        row_factory=dict_row,
        connect_timeout=CONNECT_TIMEOUT,
        **KEEPALIVES,
        **options,
    )
