"""The durable stores of the embedded service: SQLite files in its data directory."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from service.stores.catalog import SqliteCatalog
from service.stores.coordination import LocalCoordination
from service.stores.durable import DurableStores
from service.stores.interactions import SqliteInteractionLog
from service.stores.jobs import SqliteJobLog
from service.stores.ledger import SqliteLedger

LEDGER = "ledger.sqlite3"
CATALOG = "catalog.sqlite3"
INTERACTIONS = "interactions.sqlite3"
JOBS = "jobs.sqlite3"


def open_sqlite(data_dir: Path, *, clock: Callable[[], float] = time.time) -> DurableStores:
    """Open (creating or upgrading) the SQLite files under ``data_dir``; if one fails to
    open, those opened before it are closed. ``clock`` times ledger changes recorded with
    no time."""
    data_dir.mkdir(parents=True, exist_ok=True)
    closers: list[Callable[[], None]] = []
    try:
        ledger = SqliteLedger(data_dir / LEDGER, clock=clock)
        closers.append(ledger.close)
        catalog = SqliteCatalog(data_dir / CATALOG)
        closers.append(catalog.close)
        interactions = SqliteInteractionLog(data_dir / INTERACTIONS)
        closers.append(interactions.close)
        jobs = SqliteJobLog(data_dir / JOBS)
        closers.append(jobs.close)
    except BaseException:
        _close_all(closers)
        raise
    return DurableStores(
        ledger=ledger,
        catalog=catalog,
        interactions=interactions,
        jobs=jobs,
        coordination=LocalCoordination(),
        closer=lambda: _close_all(closers),
    )


def _close_all(closers: list[Callable[[], None]]) -> None:
    """Close in reverse order of opening."""
    for close in reversed(closers):
        close()
