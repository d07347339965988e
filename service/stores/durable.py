"""The durable stores a service keeps its state in, opened together on one database: SQLite
files in the data directory of one process, or the Postgres database a cluster shares."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from service.domain.ports import (
    Catalog,
    Compaction,
    Coordination,
    InteractionLog,
    Ledger,
    RunLog,
    SignedOutSessions,
)
from service.stores.catalog import SqlCatalog
from service.stores.coordination import LocalCoordination, PostgresCoordination
from service.stores.database import Database
from service.stores.interactions import SqlInteractionLog
from service.stores.ledger import SqlLedger
from service.stores.postgres import PostgresDatabase
from service.stores.runs import SqlRunLog
from service.stores.schema import prepare
from service.stores.signed_out import SqlSignedOutSessions
from service.stores.sqlite import SqliteDatabase
from service.stores.tables import GROUPS

FILES = {
    "ledger": "ledger.sqlite3",
    "catalog": "catalog.sqlite3",
    "interactions": "interactions.sqlite3",
    "runs": "jobs.sqlite3",
}
"""The SQLite file of each group of tables (``service.stores.tables.GROUPS``)."""
LEDGER = FILES["ledger"]
ERASED = ("ledger", "catalog", "interactions")
"""The groups whose tables a namespace's erasure removes rows from."""


class Vacuum:
    """Compaction of the tables an erasure removes rows from (``Compaction``)."""

    def __init__(self, databases: dict[str, Database]) -> None:
        self.databases = databases
        """The database of each group of ``ERASED``."""

    def compact(self) -> None:
        for group in ERASED:
            self.databases[group].compact(list(GROUPS[group].sorted_tables))


@dataclass(frozen=True)
class DurableStores:
    """The ledger, the catalog, the interaction log, the log of job runs, the console
    sessions signed out of and the coordination of one backend."""

    ledger: Ledger
    catalog: Catalog
    interactions: InteractionLog
    runs: RunLog
    coordination: Coordination
    closer: Callable[[], None]
    compaction: Compaction
    signed_out: SignedOutSessions

    def close(self) -> None:
        """Release every connection; the stores are unusable after."""
        self.closer()


def open_sqlite(data_dir: Path, *, clock: Callable[[], float] = time.time) -> DurableStores:
    """Open (creating or upgrading) the SQLite files under ``data_dir``; if one fails to
    open, those opened before it are closed. ``clock`` times ledger changes recorded with
    no time."""
    data_dir.mkdir(parents=True, exist_ok=True)
    opened: dict[str, Database] = {}
    try:
        for group, name in FILES.items():
            opened[group] = database = SqliteDatabase(data_dir / name)
            prepare(database, [group])
    except BaseException:
        _close_all(list(opened.values()))
        raise
    return DurableStores(
        ledger=SqlLedger(opened["ledger"], clock=clock),
        catalog=SqlCatalog(opened["catalog"]),
        interactions=SqlInteractionLog(opened["interactions"]),
        runs=SqlRunLog(opened["runs"]),
        coordination=LocalCoordination(),
        closer=lambda: _close_all(list(opened.values())),
        compaction=Vacuum(opened),
        signed_out=SqlSignedOutSessions(opened["runs"]),
    )


def open_postgres(
    url: str,
    *,
    clock: Callable[[], float] = time.time,
    pool_size: int = 8,
    timeout: float = 10.0,
) -> DurableStores:
    """Migrate the database at ``url`` (a ``postgresql://`` URL) to this release's schema,
    then open its stores on one pool of at most ``pool_size`` connections; coordination
    keeps connections of its own. ``clock`` times ledger changes recorded with no time;
    ``timeout`` bounds each statement and the wait for a connection."""
    database = PostgresDatabase(url, pool_size=pool_size, timeout=timeout)
    try:
        prepare(database, FILES)
        coordination = PostgresCoordination(url)
    except BaseException:
        database.close()
        raise

    def close() -> None:
        coordination.close()
        database.close()

    return DurableStores(
        ledger=SqlLedger(database, clock=clock),
        catalog=SqlCatalog(database),
        interactions=SqlInteractionLog(database),
        runs=SqlRunLog(database),
        coordination=coordination,
        closer=close,
        compaction=Vacuum(dict.fromkeys(ERASED, database)),
        signed_out=SqlSignedOutSessions(database),
    )


def _close_all(databases: list[Database]) -> None:
    """Close in reverse order of opening."""
    for database in reversed(databases):
        database.close()
