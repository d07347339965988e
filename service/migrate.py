"""Copying a service's durable state between backends: the SQLite files of a data directory
and a Postgres database (``strata migrate``).

Everything is copied row by row, in batches, as stored: entries with their state, their
chunks with the vectors (so nothing is embedded again), their history and quarantine; the
collections with the text of every file; the interaction log with its feedback; the runs of
the jobs. The ledger's change log is not: a replica meeting the copy rebuilds its keyword
index from the ledger, and Chroma and Tantivy are derived from the ledger (``strata
rebuild``, or at the first start of an embedded service). Rows keep the order they were
written in (which entry of a thread came last, which run is newest).

Both sides are brought to this release's schema first, by the stores' own migrations.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from service.errors import ConfigError
from service.net.addresses import redacted
from service.stores.embedded import CATALOG, INTERACTIONS, JOBS, LEDGER, open_sqlite

BATCH = 500
"""Rows read and written at a time."""
DERIVED = ("tantivy", "chroma", "checkpoint.json")
"""What a data directory holds that is derived from its ledger, removed when a copy
replaces the ledger (it is rebuilt, without embedding, at the next start)."""


@dataclass(frozen=True)
class Table:
    name: str
    store: str
    """The SQLite file of the data directory holding it."""
    columns: tuple[str, ...]
    sqlite_order: str
    postgres_order: str
    flags: tuple[str, ...] = ()
    """Columns holding booleans (integers in SQLite)."""
    json: tuple[str, ...] = ()
    """Columns holding JSON (text in SQLite, jsonb in Postgres)."""


def columns(names: str) -> tuple[str, ...]:
    return tuple(names.split())


ENTRY_COLUMNS = columns(
    "key id namespace tier text speaker role chain_type tags timestamp expires_at metadata "
    "archived tokens state kind type confidence variants thread context"
)

TABLES = (
    Table("entries", LEDGER, ENTRY_COLUMNS, "rowid", "written", flags=("archived",)),
    Table("chunks", LEDGER, ("key", "number", "text", "vector"), "key, number", "key, number"),
    Table("history", LEDGER, ("key", "at", "action", "actor"), "rowid", "id"),
    Table("quarantine", LEDGER, ("key", "reason", "at"), "key", "key"),
    Table(
        "collections",
        CATALOG,
        ("id", "name", "namespace", "path", "mask", "tier", "created_at", "scanned_at"),
        "rowid",
        "id",
    ),
    Table(
        "files",
        CATALOG,
        ("collection", "path", "hash", "chunks", "text"),
        "collection, path",
        "collection, path",
    ),
    Table(
        "interactions",
        INTERACTIONS,
        columns(
            "id at namespace asker question results strong_match best_relevance took_ms "
            "answer_confidence"
        ),
        "rowid",
        "n",
        flags=("strong_match",),
        json=("results",),
    ),
    Table(
        "feedback",
        INTERACTIONS,
        ("interaction_id", "at", "rating", "comment", "actor"),
        "rowid",
        "id",
    ),
    Table(
        "job_runs",
        JOBS,
        ("job", "replica", "started_at", "finished_at", "result", "error", "slot"),
        "id",
        "id",
        json=("result",),
    ),
)
"""In the order they are copied: a row's references are copied before it."""
OWNED = ("entries", "collections", "interactions", "job_runs")
"""A target holding rows in any of these is not empty."""

Row = tuple[Any, ...]


class Side(Protocol):
    """One backend, read or written table by table."""

    def count(self, table: Table) -> int: ...

    def read(self, table: Table) -> Iterator[list[Row]]: ...

    def write(self, table: Table, rows: Sequence[Row]) -> None: ...

    def clear(self) -> None:
        """Delete every row of every table (and start the change log anew)."""
        ...

    def commit(self) -> None: ...


@dataclass
class Copied:
    """Rows copied per table, and chunk vectors among the chunks."""

    rows: dict[str, int] = field(default_factory=dict)
    vectors: int = 0
    cleared: list[str] = field(default_factory=list)
    """Derived indexes removed from the target data directory, to be rebuilt."""


def migrate(
    source: str,
    target: str,
    *,
    force: bool = False,
    progress: Callable[[str, int], None] | None = None,
) -> Copied:
    """Copy everything from ``source`` to ``target``, each a data directory or a
    ``postgresql://`` URL (one of each). Refused (ConfigError) when the target holds
    entries, collections, interactions or job runs, unless ``force``: then they are
    replaced."""
    if is_url(source) == is_url(target):
        raise ConfigError(
            "strata migrate copies between a data directory and a postgresql:// database: "
            f"got {shown(source)} and {shown(target)}"
        )
    with ExitStack() as stack:
        reader = stack.enter_context(open_side(source, create=False))
        writer = stack.enter_context(open_side(target, create=True))
        held = {t.name: n for t in TABLES if t.name in OWNED and (n := writer.count(t))}
        if held and not force:
            listed = ", ".join(f"{name} {n}" for name, n in held.items())
            raise ConfigError(
                f"{shown(target)} is not empty ({listed}); --force replaces what it holds"
            )
        copied = Copied()
        if held:
            writer.clear()
        for table in TABLES:
            done = 0
            for rows in reader.read(table):
                writer.write(table, rows)
                done += len(rows)
                if table.name == "chunks":
                    copied.vectors += sum(1 for row in rows if row[-1] is not None)
                if progress is not None:
                    progress(table.name, done)
            copied.rows[table.name] = done
        writer.commit()
    if not is_url(target):
        copied.cleared = clear_derived(Path(target))
    return copied


def is_url(where: str) -> bool:
    return where.startswith(("postgresql://", "postgres://"))


def shown(where: str) -> str:
    return redacted(where) if is_url(where) else where


def clear_derived(data: Path) -> list[str]:
    """Remove the indexes a data directory derived from the ledger it held before."""
    removed = []
    for name in DERIVED:
        path = data / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        else:
            continue
        removed.append(name)
    return removed


@contextmanager
def open_side(where: str, *, create: bool) -> Iterator[Side]:
    """The side at ``where``, brought to this release's schema; a data directory is made
    when ``create``, else it must exist."""
    side: SqliteSide | PostgresSide
    if is_url(where):
        from service.stores.migrations import migrate_postgres
        from service.stores.postgres.pool import connect

        with connect(where, application_name="strata migrate") as conn:
            migrate_postgres(conn)
        side = PostgresSide(where)
    else:
        data = Path(where)
        if not data.is_dir() and not create:
            raise ConfigError(f"no data directory at {where}")
        open_sqlite(data).close()  # creates or upgrades its files
        side = SqliteSide(data)
    try:
        yield side
    finally:
        side.close()


class SqliteSide:
    """The SQLite files of a data directory, one transaction per file when written."""

    def __init__(self, data: Path) -> None:
        self.files = {
            name: sqlite3.connect(data / name, isolation_level=None)
            for name in (LEDGER, CATALOG, INTERACTIONS, JOBS)
        }
        self._writing: set[str] = set()

    def count(self, table: Table) -> int:
        found = self.files[table.store].execute(f"SELECT COUNT(*) FROM {table.name}")
        return int(found.fetchone()[0])

    def read(self, table: Table) -> Iterator[list[Row]]:
        cursor = self.files[table.store].execute(
            f"SELECT {', '.join(table.columns)} FROM {table.name} ORDER BY {table.sqlite_order}"
        )
        while rows := cursor.fetchmany(BATCH):
            yield rows

    def write(self, table: Table, rows: Sequence[Row]) -> None:
        db = self._begun(table.store)
        flags = [n for n, c in enumerate(table.columns) if c in table.flags]
        marks = ", ".join("?" * len(table.columns))
        db.executemany(
            f"INSERT INTO {table.name} ({', '.join(table.columns)}) VALUES ({marks})",
            [_with(row, flags, int) for row in rows],
        )

    def clear(self) -> None:
        for table in reversed(TABLES):
            self._begun(table.store).execute(f"DELETE FROM {table.name}")
        self._begun(LEDGER).execute("DELETE FROM changes")

    def _begun(self, store: str) -> sqlite3.Connection:
        db = self.files[store]
        if store not in self._writing:
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("BEGIN IMMEDIATE")
            self._writing.add(store)
        return db

    def commit(self) -> None:
        for store in self._writing:
            self.files[store].execute("COMMIT")
        self._writing.clear()

    def close(self) -> None:
        for db in self.files.values():
            if db.in_transaction:
                db.execute("ROLLBACK")
            db.close()


class PostgresSide:
    """A Postgres database, written in one transaction."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.db = psycopg.connect(url, application_name="strata migrate")

    def count(self, table: Table) -> int:
        found = self.db.execute(f"SELECT COUNT(*) FROM {table.name}").fetchone()
        return int(found[0]) if found else 0

    def read(self, table: Table) -> Iterator[list[Row]]:
        columns = ", ".join(f"{c}::text" if c in table.json else c for c in table.columns)
        with self.db.cursor(name=f"copy_{table.name}") as cursor:
            cursor.itersize = BATCH
            cursor.execute(f"SELECT {columns} FROM {table.name} ORDER BY {table.postgres_order}")
            while rows := cursor.fetchmany(BATCH):
                yield [_bytes(row) for row in rows]

    def write(self, table: Table, rows: Sequence[Row]) -> None:
        flags = [n for n, c in enumerate(table.columns) if c in table.flags]
        marks = ", ".join("%s::jsonb" if c in table.json else "%s" for c in table.columns)
        with self.db.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {table.name} ({', '.join(table.columns)}) VALUES ({marks})",
                [_with(row, flags, bool) for row in rows],
            )

    def clear(self) -> None:
        names = ", ".join(t.name for t in TABLES)
        self.db.execute(f"TRUNCATE {names}, changes")
        # Every change number given so far is now below the horizon: a replica that
        # followed what was here rebuilds its index from what is here now.
        self.db.execute(
            "INSERT INTO change_horizon (one, horizon) "
            "VALUES (1, nextval(pg_get_serial_sequence('changes', 'seq'))) "
            "ON CONFLICT (one) DO UPDATE SET horizon = EXCLUDED.horizon"
        )

    def commit(self) -> None:
        self.db.commit()

    def close(self) -> None:
        self.db.close()


def _with(row: Row, columns: list[int], kind: Callable[[Any], Any]) -> Row:
    """``row`` with the values at ``columns`` turned into ``kind``."""
    if not columns:
        return tuple(row)
    return tuple(kind(v) if n in columns and v is not None else v for n, v in enumerate(row))


def _bytes(row: Row) -> Row:
    """Postgres ``bytea`` values as the ``bytes`` SQLite takes."""
    return tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)
