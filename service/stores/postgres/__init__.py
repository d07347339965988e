"""The durable stores on Postgres, for a cluster of replicas sharing one database."""

from __future__ import annotations

import time
from collections.abc import Callable

from service.stores.durable import DurableStores
from service.stores.migrations import migrate_postgres
from service.stores.postgres.catalog import PostgresCatalog
from service.stores.postgres.coordination import PostgresCoordination
from service.stores.postgres.interactions import PostgresInteractionLog
from service.stores.postgres.jobs import PostgresJobLog
from service.stores.postgres.ledger import PostgresLedger
from service.stores.postgres.pool import connect, open_pool

PostgresStores = DurableStores
"""What ``open_postgres`` opens: ``DurableStores``, as ``open_sqlite`` does."""


def open_postgres(
    url: str, *, clock: Callable[[], float] = time.time, pool_size: int = 8
) -> DurableStores:
    """Migrate the database at ``url`` (a ``postgresql://`` URL) to this release's schema,
    then open its stores on one pool of at most ``pool_size`` connections; coordination
    keeps connections of its own. ``clock`` times ledger changes recorded with no time."""
    with connect(url, application_name="strata migrate") as conn:
        migrate_postgres(conn)
    pool = open_pool(url, max_size=pool_size)
    coordination = PostgresCoordination(url)

    def close() -> None:
        coordination.close()
        pool.close()

    return DurableStores(
        ledger=PostgresLedger(pool, clock=clock),
        catalog=PostgresCatalog(pool),
        interactions=PostgresInteractionLog(pool),
        jobs=PostgresJobLog(pool),
        coordination=coordination,
        closer=close,
    )


__all__ = ["PostgresStores", "open_postgres"]
