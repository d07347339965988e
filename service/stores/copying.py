"""Copying a service's durable state between backends: the SQLite files of a data directory
and a Postgres database (``strata migrate``).

Everything is copied row by row, in batches, as stored: entries with their state, their
chunks with the vectors (so nothing is embedded again), their history and quarantine; the
collections with the text of every file; the interaction log with its feedback; the runs of
the jobs. The ledger's change log is not: a replica meeting the copy rebuilds its keyword
index from the ledger, and Chroma and Tantivy are derived from the ledger (``strata
rebuild``, or at the first start of an embedded service). Rows keep the order they were
written in (which entry of a thread came last, which run is newest).

Tables are copied by their definitions in ``service.stores.tables``; both sides are brought
to this release's schema first, as the stores open them.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Table, delete, func, select, text

from service.errors import ConfigError
from service.net.addresses import is_postgres, redacted
from service.stores.database import Database
from service.stores.durable import FILES
from service.stores.postgres import PostgresDatabase
from service.stores.schema import prepare
from service.stores.sqlite import SqliteDatabase
from service.stores.tables import GROUPS, change_horizon, changes, entries

BATCH = 500
"""Rows read and written at a time."""
DERIVED = ("tantivy", "chroma", "checkpoint.json")
"""What a data directory holds that is derived from its ledger, removed when a copy
replaces the ledger (it is rebuilt, without embedding, at the next start)."""
NOT_COPIED = {changes.name, change_horizon.name}
"""The change log: replicas meeting the copy rebuild their indexes from the ledger."""
OWNED = ("entries", "collections", "interactions", "job_runs")
"""A target holding rows in any of these is not empty."""

TABLES = [
    (group, table)
    for group, metadata in GROUPS.items()
    for table in metadata.sorted_tables
    if table.name not in NOT_COPIED
]
"""In the order they are copied: a row's references are copied before it."""


@dataclass
class Copied:
    """Rows copied per table, and chunk vectors among the chunks."""

    rows: dict[str, int] = field(default_factory=dict)
    vectors: int = 0
    cleared: list[str] = field(default_factory=list)
    """Derived indexes removed from the target data directory, to be rebuilt."""


def copy_state(
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
    if is_postgres(source) == is_postgres(target):
        raise ConfigError(
            "strata migrate copies between a data directory and a postgresql:// database: "
            f"got {redacted(source)} and {redacted(target)}"
        )
    with ExitStack() as stack:
        reading = stack.enter_context(open_side(source, create=False))
        writing = stack.enter_context(open_side(target, create=True))
        readers = _enter(stack, reading, lambda database: database.snapshot())
        writers = _enter(stack, writing, lambda database: database.write())
        held = {t.name: n for g, t in TABLES if t.name in OWNED and (n := _count(writers[g], t))}
        if held and not force:
            listed = ", ".join(f"{name} {n}" for name, n in held.items())
            raise ConfigError(
                f"{redacted(target)} is not empty ({listed}); --force replaces what it holds"
            )
        if held:
            _clear(writers)
        copied = Copied()
        for group, table in TABLES:
            done = 0
            for rows in _read(readers[group], table):
                writers[group].execute(table.insert(), rows)
                done += len(rows)
                if table.name == "chunks":
                    copied.vectors += sum(1 for row in rows if row["vector"] is not None)
                if progress is not None:
                    progress(table.name, done)
            copied.rows[table.name] = done
        if writers["ledger"].dialect.name == "postgresql":
            _continue_numbering(writers["ledger"])
    if not is_postgres(target):
        copied.cleared = clear_derived(Path(target))
    return copied


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
def open_side(where: str, *, create: bool) -> Iterator[dict[str, Database]]:
    """The database holding each group of tables at ``where``: the one of a URL, or the
    files of a data directory (made when ``create``, else it must exist), brought to this
    release's schema."""
    if is_postgres(where):
        database: Database = PostgresDatabase(where, pool_size=1, name="strata migrate")
        try:
            prepare(database, GROUPS)
            yield dict.fromkeys(GROUPS, database)
        finally:
            database.close()
        return
    data = Path(where)
    if not data.is_dir() and not create:
        raise ConfigError(f"no data directory at {where}")
    files: dict[str, Database] = {}
    try:
        for group, name in FILES.items():
            files[group] = SqliteDatabase(data / name)
            prepare(files[group], [group])
        yield files
    finally:
        for database in files.values():
            database.close()


def _enter(
    stack: ExitStack, side: dict[str, Database], how: Callable[[Database], Any]
) -> dict[str, Connection]:
    """A connection per group, opened by ``how`` once per database (one for every group on
    Postgres, a file each on SQLite)."""
    opened: dict[int, Connection] = {}
    for database in side.values():
        if id(database) not in opened:
            opened[id(database)] = stack.enter_context(how(database))
    return {group: opened[id(database)] for group, database in side.items()}


def _count(conn: Connection, table: Table) -> int:
    return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


def _read(conn: Connection, table: Table) -> Iterator[list[dict[str, object]]]:
    """The rows of ``table`` in the order they were written, in batches, without the
    numbers the target gives anew (it numbers them in the same order)."""
    numbered = table.autoincrement_column
    columns = [c for c in table.columns if c is not numbered]
    order = [entries.c.written] if table is entries else list(table.primary_key)
    query = select(*columns).order_by(*order)
    result = conn.execute(query.execution_options(yield_per=BATCH))
    for rows in result.partitions():
        yield [dict(row._mapping) for row in rows]


def _clear(writers: Mapping[str, Connection]) -> None:
    """Delete every row of every copied table and the change log."""
    for group, table in reversed([*TABLES, ("ledger", changes)]):
        writers[group].execute(delete(table))


def _continue_numbering(conn: Connection) -> None:
    """Postgres: entries written next come after those copied, and every change number given
    so far goes below the horizon: a replica that followed what was here rebuilds its index
    from what is here now."""
    conn.execute(
        text("SELECT setval('entries_written', COALESCE(MAX(written), 0) + 1, false) FROM entries")
    )
    conn.execute(
        text(
            "INSERT INTO change_horizon (one, horizon) "
            "VALUES (1, nextval(pg_get_serial_sequence('changes', 'seq'))) "
            "ON CONFLICT (one) DO UPDATE SET horizon = EXCLUDED.horizon"
        )
    )
