"""The Postgres database a cluster's replicas share, as the database of their stores."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from select import select as poll_sockets
from typing import Any

import psycopg
from sqlalchemy import (
    BigInteger,
    Boolean,
    ColumnElement,
    Connection,
    Float,
    Integer,
    LargeBinary,
    Table,
    Text,
    any_,
    bindparam,
    create_engine,
    event,
    func,
    select,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError, OperationalError

from service.stores.database import (
    CHANGES_LOCK,
    Database,
    Row,
    Upsert,
    classified,
    transaction,
)
from service.stores.tables import entries, entries_written

CONNECT_TIMEOUT = 10
"""Seconds to wait for a Postgres server when connecting."""

KEEPALIVES: dict[str, Any] = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5}
"""TCP keepalives, so a connection to a server gone away is seen to fail within a minute
(it matters most to the connections that hold the leadership and the job locks)."""


class PostgresDatabase(Database):
    """A pool of connections to a Postgres database, each in autocommit mode: a write opens
    its own transaction, a read of one statement needs none."""

    def __init__(
        self, url: str, *, pool_size: int = 8, name: str = "strata", timeout: float = 10.0
    ) -> None:
        """``timeout``: the seconds a statement, or the wait for a free connection, may take
        before the database counts as unavailable."""
        engine = create_engine(
            postgres_url(url),
            pool_size=pool_size,
            max_overflow=0,
            pool_timeout=timeout,
            isolation_level="AUTOCOMMIT",
            connect_args={
                "connect_timeout": max(1, round(timeout)),
                "application_name": name,
                **KEEPALIVES,
            },
        )
        event.listen(engine, "checkout", _closed_by_server)
        # Set on each new connection, so ``options`` given in the URL are kept.
        statement_timeout = f"SET statement_timeout = {round(timeout * 1000)}"
        event.listen(engine, "connect", lambda conn, _: conn.execute(statement_timeout))
        super().__init__(engine)

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with classified(), self.engine.connect() as conn:
            yield conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        with classified(), self.engine.connect() as conn:
            yield from transaction(conn, "BEGIN")

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        with classified(), self.engine.connect() as conn:
            yield from transaction(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

    def insert(self, table: Table) -> Upsert:
        return postgresql.insert(table)

    def key_in(self, column: ColumnElement[str]) -> ColumnElement[bool]:
        return column == any_(bindparam("keys", type_=postgresql.ARRAY(Text)))

    def key_list(self, keys: Sequence[str]) -> Any:
        return list(keys)

    def gather(self, value: ColumnElement[Any], order: ColumnElement[Any]) -> ColumnElement[Any]:
        return func.array_agg(postgresql.aggregate_order_by(value, order))

    def gathered(self, column: Any) -> list[Any]:
        return list(column) if column else []

    def insert_rows(
        self, conn: Connection, table: Table, columns: Sequence[str], rows: Sequence[Row]
    ) -> None:
        if rows:
            _copy(conn, table.name, table, columns, rows)

    def replace_entries(
        self, conn: Connection, columns: Sequence[str], rows: Sequence[Row]
    ) -> None:
        """``COPY`` cannot replace rows: the entries are copied to a table of this
        connection (emptied at every commit), then written from there in key order, so
        writers of the same new keys wait for each other in one order and never deadlock."""
        if not rows:
            return
        listed = ", ".join(columns)
        made = conn.connection.info.setdefault("staged", set())
        if listed not in made:  # once per connection
            conn.exec_driver_sql(
                "CREATE TEMP TABLE IF NOT EXISTS staged_entries ON COMMIT DELETE ROWS AS "
                f"SELECT {listed} FROM entries WITH NO DATA"
            )
            made.add(listed)
        _copy(conn, "staged_entries", entries, columns, rows)
        updates = ", ".join(f"{name} = EXCLUDED.{name}" for name in columns if name != "key")
        conn.exec_driver_sql(
            f"INSERT INTO entries ({listed}) SELECT {listed} FROM staged_entries ORDER BY key "
            f"ON CONFLICT (key) DO UPDATE SET {updates}"
        )

    def draw_written(self, conn: Connection, count: int) -> list[int]:
        drawn = conn.execute(
            select(entries_written.next_value()).select_from(func.generate_series(1, count))
        )
        return sorted(n for (n,) in drawn)

    def order_changes(self, conn: Connection) -> None:
        conn.execute(select(func.pg_advisory_xact_lock(CHANGES_LOCK)))

    def compact(self, tables: Sequence[Table]) -> None:
        """``VACUUM FULL`` writes each table (and its TOAST data and indexes) into new files
        and removes the old ones. Each table is locked while it is rewritten: reads and
        writes of it wait meanwhile."""
        with classified(), self.engine.connect() as conn:
            conn.exec_driver_sql("SET statement_timeout = 0")
            try:
                quote = conn.dialect.identifier_preparer.quote
                for table in tables:
                    conn.exec_driver_sql(f"VACUUM (FULL) {quote(table.name)}")
            finally:
                conn.exec_driver_sql("RESET statement_timeout")


def _closed_by_server(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """A pooled connection the server has closed (a restart, a server gone) is replaced
    before use, so it fails no request. An idle connection has nothing to read: one the
    server ended has its farewell or the end of the stream waiting, which ``select`` sees
    without a round trip (where a ``SELECT 1`` ping would cost one per checkout)."""
    pgconn = dbapi_connection.pgconn
    if pgconn.status != 0:  # CONNECTION_OK
        raise DisconnectionError("connection broken")
    readable, _, _ = poll_sockets([pgconn.socket], [], [], 0)
    if readable:
        raise DisconnectionError("connection closed by the server")


def postgres_url(url: str) -> str:
    """A ``postgresql://`` (or ``postgres://``) URL as SQLAlchemy opens it with psycopg."""
    return make_url(url).set(drivername="postgresql+psycopg").render_as_string(hide_password=False)


_PG_TYPES = [
    (Boolean, "bool"),
    (BigInteger, "int8"),
    (Integer, "int4"),
    (Float, "float8"),
    (LargeBinary, "bytea"),
]


def _pg_type(table: Table, name: str) -> str:
    kind = table.c[name].type
    return next((pg for generic, pg in _PG_TYPES if isinstance(kind, generic)), "text")


def _copy(
    conn: Connection, target: str, table: Table, columns: Sequence[str], rows: Sequence[Row]
) -> None:
    """``COPY`` rows in binary into ``target`` (``table`` or a table shaped like it)."""
    raw = conn.connection.driver_connection
    sql = f"COPY {target} ({', '.join(columns)}) FROM STDIN (FORMAT BINARY)"
    try:
        with raw.cursor().copy(sql) as copy:  # type: ignore[union-attr]
            copy.set_types([_pg_type(table, name) for name in columns])
            for row in rows:
                copy.write_row(row)
    except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
        # The driver's own error, past SQLAlchemy: said as SQLAlchemy says it, with the
        # connection given up as SQLAlchemy gives up one that broke.
        conn.invalidate(exc)
        raise OperationalError(sql, None, exc) from exc
