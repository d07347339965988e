"""Versioned schema migrations, for SQLite files and for a Postgres database.

Each schema is a folder of plain SQL files named ``NNNN_what.sql`` (``sqlite/ledger``,
``sqlite/catalog``, ``sqlite/interactions``, ``sqlite/jobs``, ``postgres``). A store applies
the ones its ``schema_version`` table does not list when it opens, each once, in order, in
a transaction of its own that records it.

A small runner rather than Alembic: the stores use no ORM whose models could generate
migrations, the two backends are two dialects of plain SQL written by hand anyway, and the
service (often embedded in a developer's environment) installs nothing more for it.

The ledger's first version is the schema releases before versioning wrote, in statements
that leave an existing file as it is (``IF NOT EXISTS``), plus a step in Python that adds
the columns those releases added at open: files written by any earlier release open and
upgrade.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

FILE_NAME = re.compile(r"^(\d{4})_(\w+)\.sql$")

MIGRATION_LOCK = 0x5354_5241_0001
"""The Postgres advisory lock held while a process migrates: replicas starting together
apply each migration once, one after the other."""

SqliteStep = Callable[[sqlite3.Connection], None]
"""Python run after a migration's SQL, in its transaction."""


class SchemaTooNew(RuntimeError):
    """The database was migrated by a newer release than this one."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


@cache
def migrations(schema: str) -> tuple[Migration, ...]:
    """The migrations of ``schema`` (a folder here, such as ``sqlite/ledger``), in order."""
    folder = files(__package__)
    for part in schema.split("/"):
        folder = folder / part
    found = []
    for item in folder.iterdir():
        match = FILE_NAME.match(item.name)
        if match:
            found.append(Migration(int(match[1]), match[2], item.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations of {schema} are not numbered 1, 2, ...: {found}")
    return tuple(found)


def statements(sql: str) -> list[str]:
    """The statements of a SQLite script, each complete (a ``;`` inside a string or a
    trigger body does not cut one); comments alone are no statement."""
    found, buffer = [], ""
    for piece in sql.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            lines = [line for line in buffer.splitlines() if not line.lstrip().startswith("--")]
            if "".join(lines).strip(" \t\r\n;"):
                found.append(buffer.strip())
            buffer = ""
    return found


def _check_known(schema: str, applied: set[int]) -> None:
    known = len(migrations(schema))
    if applied and max(applied) > known:
        raise SchemaTooNew(
            f"the {schema} schema is at version {max(applied)}; this release knows {known}"
        )


def migrate_sqlite(
    db: sqlite3.Connection, schema: str, steps: Mapping[int, SqliteStep] | None = None
) -> list[int]:
    """Apply the migrations of ``schema`` the file lacks; returns the versions applied.

    ``db`` is in autocommit mode (``isolation_level=None``). Each migration runs in a
    ``BEGIN IMMEDIATE`` transaction that checks the version again, so processes opening
    one file together apply it once."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_version ("
        "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
    )
    done = {row[0] for row in db.execute("SELECT version FROM schema_version")}
    _check_known(schema, done)
    applied = []
    for migration in migrations(schema):
        if migration.version in done:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            again = db.execute(
                "SELECT 1 FROM schema_version WHERE version = ?", (migration.version,)
            ).fetchone()
            if again is None:
                for statement in statements(migration.sql):
                    db.execute(statement)
                step = (steps or {}).get(migration.version)
                if step is not None:
                    step(db)
                db.execute(
                    "INSERT INTO schema_version VALUES (?, ?, ?)",
                    (migration.version, migration.name, time.time()),
                )
                applied.append(migration.version)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    return applied


def migrate_postgres(conn: psycopg.Connection[Any], schema: str = "postgres") -> list[int]:
    """Apply the migrations the database lacks; returns the versions applied.

    ``conn`` is in autocommit mode. The session holds ``MIGRATION_LOCK`` throughout, so a
    replica starting while another migrates waits for it, then finds nothing to do."""
    from psycopg.rows import tuple_row

    conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            "version integer PRIMARY KEY, name text NOT NULL, "
            "applied_at double precision NOT NULL)"
        )
        cursor = conn.cursor(row_factory=tuple_row).execute("SELECT version FROM schema_version")
        done = {int(row[0]) for row in cursor.fetchall()}
        _check_known(schema, done)
        applied = []
        for migration in migrations(schema):
            if migration.version in done:
                continue
            with conn.transaction():
                conn.execute(migration.sql.encode())
                conn.execute(
                    "INSERT INTO schema_version VALUES (%s, %s, %s)",
                    (migration.version, migration.name, time.time()),
                )
            applied.append(migration.version)
        return applied
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
