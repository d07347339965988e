"""The tables of the durable stores brought to this release's schema when they open.

A new database gets its tables from ``service.stores.tables`` and is marked as at the
latest migration. A database this release's migrations wrote before is upgraded by the
migrations it lacks (Alembic, in ``service/stores/migrations``: one branch per store). A
database the releases before these migrations wrote (it has the store's tables and no
``alembic_version``) runs every migration of the store's branch, the first of which
completes what those releases left. All of it runs in one transaction: a failing migration
leaves the database as it was. A database migrated by a newer release is refused.

On Postgres a session advisory lock is held throughout, so replicas starting together
migrate once, one after the other. SQLite rebuilds tables with its foreign keys off, as it
requires."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, inspect, text

from service.stores.database import Database, lock_key
from service.stores.tables import GROUPS

MIGRATION_LOCK = lock_key("migrations")

FIRST_TABLE = {
    "ledger": "entries",
    "catalog": "collections",
    "interactions": "interactions",
    "runs": "job_runs",
}
"""The table whose presence tells a store was written before."""


class SchemaTooNew(RuntimeError):
    """The database was migrated by a newer release than this one."""


def prepare(database: Database, groups: Iterable[str]) -> None:
    """Bring the tables of ``groups`` (names of ``service.stores.tables.GROUPS``) to this
    release's schema."""
    wanted = list(groups)
    if database.dialect == "sqlite":
        with database.read() as conn:
            conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
        try:
            with database.write() as conn:
                _prepare(conn, wanted)
                problems = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if problems:
                    raise RuntimeError(f"a migration broke foreign keys: {problems[:5]}")
        finally:
            with database.read() as conn:
                conn.exec_driver_sql("PRAGMA foreign_keys=ON")
        return
    with database.engine.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
        try:
            conn.exec_driver_sql("BEGIN")
            try:
                conn.exec_driver_sql("SET LOCAL statement_timeout = 0")  # upgrades take long
                _prepare(conn, wanted)
            except BaseException:
                conn.exec_driver_sql("ROLLBACK")
                raise
            conn.exec_driver_sql("COMMIT")
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})


def head(group: str) -> str:
    """The latest migration of a store's branch."""
    (latest,) = _script().get_revisions(f"{group}@head")
    assert latest is not None
    return latest.revision


def applied(conn: Connection) -> set[str]:
    """The migrations a database is at (one per store it holds)."""
    if not inspect(conn).has_table("alembic_version"):
        return set()
    return {row[0] for row in conn.exec_driver_sql("SELECT version_num FROM alembic_version")}


def _prepare(conn: Connection, groups: list[str]) -> None:
    script = _script()
    for revision in applied(conn):
        try:
            script.get_revision(revision)
        except CommandError:
            raise SchemaTooNew(
                f"the database is at migration {revision!r}, which this release does not "
                "know: it was migrated by a newer release"
            ) from None
    tables = set(inspect(conn).get_table_names())
    config = config_for(conn)
    for group in groups:
        if FIRST_TABLE[group] in tables:  # written before: by these migrations or earlier
            command.upgrade(config, f"{group}@head")
        else:
            GROUPS[group].create_all(conn)
            command.stamp(config, f"{group}@head")


def config_for(conn: Connection) -> Config:
    """Alembic's configuration for running this release's migrations on ``conn``."""
    config = Config()
    config.set_main_option("script_location", "service.stores:migrations")
    config.attributes["connection"] = conn
    return config


@cache
def _script() -> ScriptDirectory:
    config = Config()
    config.set_main_option("script_location", "service.stores:migrations")
    return ScriptDirectory.from_config(config)
