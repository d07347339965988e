"""The SQL database the durable stores are kept in, and everything that differs between the
two it can be: a SQLite file of one process or the Postgres database a cluster shares.

The stores write one SQL (SQLAlchemy Core, on the tables of ``service.stores.tables``) for
both. What differs lives here: how a connection is had and a write transaction begun (one
connection per file serialised by a lock, ``BEGIN IMMEDIATE``; a pool, ``BEGIN``), how rows
are written in bulk (``executemany``; ``COPY``), how entries are replaced (an upsert per row;
``COPY`` into a staging table then one upsert), how ``written`` numbers are drawn (from the
highest; a sequence) and how change numbers are kept in commit order (the file's one writer;
an advisory lock)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from select import select as poll_sockets
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    ColumnElement,
    Connection,
    Engine,
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
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.pool import StaticPool

from service.domain.models import EngineUnavailable
from service.stores.tables import entries, entries_written

Row = tuple[Any, ...]
Upsert = sqlite.Insert | postgresql.Insert
"""An insert that can say what to do on a conflict (``on_conflict_do_update``, ...)."""

CONNECT_TIMEOUT = 10
"""Seconds to wait for a Postgres server when connecting."""

KEEPALIVES: dict[str, Any] = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5}
"""TCP keepalives, so a connection to a server gone away is seen to fail within a minute
(it matters most to the connections that hold the leadership and the job locks)."""

BUSY_TIMEOUT = 30.0
"""Seconds a write to a SQLite file waits for another connection's write to end (another
process on the same data directory, such as a command run beside the server)."""


def lock_key(name: str) -> int:
    """The Postgres advisory lock key (a signed 64-bit integer) of a name, the same in every
    process."""
    digest = hashlib.blake2b(f"strata:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


CHANGES_LOCK = lock_key("changes")
"""Held (for its transaction) by every Postgres writer from appending changes to committing:
change numbers are committed in order, so a reader never skips one committed late."""


HIGHEST_WRITTEN = select(func.coalesce(func.max(entries.c.written), 0))


class Database:
    """Connections to one database, for the stores' reads and writes."""

    dialect: str
    """``sqlite`` or ``postgresql``."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection for reads, each statement on its own (no transaction held)."""
        raise NotImplementedError

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A connection in a write transaction, committed when the block ends, rolled back if
        it raises."""
        raise NotImplementedError

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A connection whose statements all read one state of the database."""
        raise NotImplementedError

    def insert(self, table: Table) -> Upsert:
        """An insert with this database's ``on_conflict_do_update`` / ``_do_nothing``."""
        raise NotImplementedError

    def key_in(self, column: ColumnElement[str]) -> ColumnElement[bool]:
        """``column`` is one of the keys bound to ``keys`` (as ``key_list`` gives them): one
        parameter for any number of keys, so the statement is compiled once."""
        raise NotImplementedError

    def key_list(self, keys: Sequence[str]) -> Any:
        """The value bound to ``keys`` for ``key_in``."""
        raise NotImplementedError

    def gather(self, value: ColumnElement[Any], order: ColumnElement[Any]) -> ColumnElement[Any]:
        """The aggregate of a group's ``value``s in ``order``, as one column."""
        raise NotImplementedError

    def gathered(self, column: Any) -> list[Any]:
        """The values of a ``gather`` column, in order (none for NULL)."""
        raise NotImplementedError

    def insert_rows(
        self, conn: Connection, table: Table, columns: Sequence[str], rows: Sequence[Row]
    ) -> None:
        """Insert ``rows`` (values of ``columns``, in order), many at a time."""
        raise NotImplementedError

    def replace_entries(
        self, conn: Connection, columns: Sequence[str], rows: Sequence[Row]
    ) -> None:
        """Write entry rows (values of ``columns``, keys unique), replacing same keys."""
        raise NotImplementedError

    def draw_written(self, conn: Connection, count: int) -> list[int]:
        """``count`` new ``written`` numbers, in increasing order, above every one drawn."""
        raise NotImplementedError

    def order_changes(self, conn: Connection) -> None:
        """Make the changes this transaction appends commit in the order they are numbered."""

    def close(self) -> None:
        self.engine.dispose()


@contextmanager
def _classified() -> Iterator[None]:
    """Errors of a database that cannot be reached, or did not answer in time, as the
    ledger's ``EngineUnavailable``; any other error as it is."""
    try:
        yield
    except (OperationalError, InterfaceError, DisconnectionError, PoolTimeout) as exc:
        raise EngineUnavailable("ledger", _first_line(exc)) from exc


def _first_line(exc: BaseException) -> str:
    detail = str(getattr(exc, "orig", None) or exc)
    return detail.strip().splitlines()[0] if detail.strip() else type(exc).__name__


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
        with _classified(), self._lock:
            yield self._conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        with _classified(), self._lock:
            yield from _transaction(self._conn, "BEGIN IMMEDIATE")

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        with _classified(), self._lock:
            yield from _transaction(self._conn, "BEGIN")

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
        return json.loads(column) if column else []

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

    def close(self) -> None:
        with self._lock:
            self._conn.close()
        super().close()


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
        with _classified(), self.engine.connect() as conn:
            yield conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        with _classified(), self.engine.connect() as conn:
            yield from _transaction(conn, "BEGIN")

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        with _classified(), self.engine.connect() as conn:
            yield from _transaction(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

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


def _transaction(conn: Connection, begin: str) -> Iterator[Connection]:
    conn.exec_driver_sql(begin)
    try:
        yield conn
    except BaseException:
        conn.exec_driver_sql("ROLLBACK")
        raise
    conn.exec_driver_sql("COMMIT")


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
    with raw.cursor().copy(sql) as copy:  # type: ignore[union-attr]
        copy.set_types([_pg_type(table, name) for name in columns])
        for row in rows:
            copy.write_row(row)
