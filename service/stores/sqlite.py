"""A SQLite file as the database of a store of one process."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
from sqlalchemy import (
    ColumnElement,
    Connection,
    Table,
    Text,
    bindparam,
    create_engine,
    event,
    func,
    select,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.pool import StaticPool

from service.stores.database import Database, Row, Upsert, classified, transaction
from service.stores.tables import entries

_decode = msgspec.json.Decoder().decode

BUSY_TIMEOUT = 30.0
"""Seconds a write to a SQLite file waits for another connection's write to end (another
process on the same data directory, such as a command run beside the server)."""

HIGHEST_WRITTEN = select(func.coalesce(func.max(entries.c.written), 0))


class SqliteDatabase(Database):
    """One SQLite file: one connection, in WAL mode with fsync on every commit and foreign
    keys on, used by one thread at a time."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            f"sqlite:///{path}",
            poolclass=StaticPool,
            connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT},
            isolation_level="AUTOCOMMIT",
        )
        event.listen(engine, "connect", _configure_sqlite)
        super().__init__(engine)
        self._lock = threading.Lock()
        self._conn = engine.connect()

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with classified(), self._lock:
            yield self._conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        with classified(), self._lock:
            yield from transaction(self._conn, "BEGIN IMMEDIATE")

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        with classified(), self._lock:
            yield from transaction(self._conn, "BEGIN")

    def insert(self, table: Table) -> Upsert:
        return sqlite.insert(table)

    def key_in(self, column: ColumnElement[str]) -> ColumnElement[bool]:
        listed = func.json_each(bindparam("keys", type_=Text)).table_valued("value")
        return column.in_(select(listed.c.value))

    def key_list(self, keys: Sequence[str]) -> Any:
        return json.dumps(list(keys))

    def gather(self, value: ColumnElement[Any], order: ColumnElement[Any]) -> ColumnElement[Any]:
        # SQLite aggregates in the order rows are visited; callers reach them through an
        # index on (group, ``order``), which visits them in order.
        return func.json_group_array(value)

    def gathered(self, column: Any) -> list[Any]:
        return _decode(column) if column else []

    def insert_rows(
        self, conn: Connection, table: Table, columns: Sequence[str], rows: Sequence[Row]
    ) -> None:
        if rows:
            conn.connection.driver_connection.executemany(  # type: ignore[union-attr]
                _insert_sql(table, tuple(columns)), rows
            )

    def replace_entries(
        self, conn: Connection, columns: Sequence[str], rows: Sequence[Row]
    ) -> None:
        if rows:
            conn.connection.driver_connection.executemany(  # type: ignore[union-attr]
                _upsert_sql(tuple(columns)), rows
            )

    def draw_written(self, conn: Connection, count: int) -> list[int]:
        highest = conn.execute(HIGHEST_WRITTEN).scalar_one()
        return list(range(highest + 1, highest + 1 + count))

    def compact(self, tables: Sequence[Table]) -> None:
        """The whole file is rewritten (``VACUUM``) and its write-ahead log emptied, so no
        freed page keeps what was removed."""
        with self.read() as conn:
            conn.exec_driver_sql("VACUUM")
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        with self._lock:
            self._conn.close()
        super().close()


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON"):
        dbapi_connection.execute(f"PRAGMA {pragma}")


@cache
def _insert_sql(table: Table, columns: tuple[str, ...]) -> str:
    statement = sqlite.insert(table).values({name: None for name in columns})
    return str(statement.compile(dialect=sqlite.dialect()))


@cache
def _upsert_sql(columns: tuple[str, ...]) -> str:
    statement = sqlite.insert(entries).values({name: None for name in columns})
    statement = statement.on_conflict_do_update(
        index_elements=[entries.c.key],
        set_={name: statement.excluded[name] for name in columns if name != "key"},
    )
    return str(statement.compile(dialect=sqlite.dialect()))
