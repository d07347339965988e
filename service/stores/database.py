"""The SQL database the durable stores are kept in, and everything that differs between the
two it can be: a SQLite file of one process or the Postgres database a cluster shares.

The stores write one SQL (SQLAlchemy Core, on the tables of ``service.stores.tables``) for
both. ``Database`` names what differs; ``SqliteDatabase`` (``service.stores.sqlite``) and
``PostgresDatabase`` (``service.stores.postgres``) do it: how a connection is had and a
write transaction begun (one connection per file serialised by a lock, ``BEGIN IMMEDIATE``;
a pool, ``BEGIN``), how rows are written in bulk (``executemany``; ``COPY``), how entries
are replaced (an upsert per row; ``COPY`` into a staging table then one upsert), how
``written`` numbers are drawn (from the highest; a sequence), how change numbers are kept
in commit order (the file's one writer; an advisory lock), how a list of keys is bound (one
JSON list; one array) and how a group's values are gathered in one column."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, Table, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from service.domain.errors import EngineUnavailable

Row = tuple[Any, ...]
Upsert = sqlite.Insert | postgresql.Insert
"""An insert that can say what to do on a conflict (``on_conflict_do_update``, ...)."""


def lock_key(name: str) -> int:
    """The Postgres advisory lock key (a signed 64-bit integer) of a name, the same in every
    process."""
    digest = hashlib.blake2b(f"strata:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


CHANGES_LOCK = lock_key("changes")
"""Held (for its transaction) by every Postgres writer from appending changes to committing:
change numbers are committed in order, so a reader never skips one committed late."""


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

    def compact(self, tables: Sequence[Table]) -> None:
        """Rewrite ``tables`` so the space of removed rows is given back and nothing of them
        is left in the database's files."""
        raise NotImplementedError

    def close(self) -> None:
        self.engine.dispose()


def erase_namespace(
    db: Database, namespace: str, parents: Table, children: Table, link: ColumnElement[Any]
) -> tuple[int, int]:
    """Delete the rows of ``parents`` in ``namespace`` and the rows of ``children`` whose
    ``link`` names one of their ids, in one transaction; how many of each went."""
    mine = select(parents.c.id).where(parents.c.namespace == namespace).scalar_subquery()
    with db.write() as conn:
        removed_children = conn.execute(delete(children).where(link.in_(mine))).rowcount
        removed = conn.execute(delete(parents).where(parents.c.namespace == namespace)).rowcount
    return int(removed), int(removed_children)


@contextmanager
def classified() -> Iterator[None]:
    """Errors of a database that cannot be reached, or did not answer in time, as the
    ledger's ``EngineUnavailable``; any other error as it is."""
    try:
        yield
    except (OperationalError, InterfaceError, DisconnectionError, PoolTimeout) as exc:
        raise EngineUnavailable("ledger", _first_line(exc)) from exc


def _first_line(exc: BaseException) -> str:
    detail = str(getattr(exc, "orig", None) or exc)
    return detail.strip().splitlines()[0] if detail.strip() else type(exc).__name__


def transaction(conn: Connection, begin: str) -> Iterator[Connection]:
    """A transaction on ``conn``: committed when the block ends, rolled back when it raises.
    The block's error is the one raised, also when the connection died with it (the server
    ended the transaction then, and a rollback can only fail)."""
    conn.exec_driver_sql(begin)
    try:
        yield conn
    except BaseException:
        if not conn.invalidated:
            with suppress(DBAPIError):  # the connection broke: nothing left to roll back
                conn.exec_driver_sql("ROLLBACK")
        raise
    conn.exec_driver_sql("COMMIT")
