"""The durable stores a service keeps its state in, opened together on one backend."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.domain.ports import Catalog, Coordination, InteractionLog, Ledger, RunLog


@dataclass(frozen=True)
class DurableStores:
    """The ledger, the catalog, the interaction log, the job log and the coordination of
    one backend: SQLite files of one process (``service.stores.embedded.open_sqlite``) or
    one Postgres database shared by a cluster (``service.stores.postgres.open_postgres``)."""

    ledger: Ledger
    catalog: Catalog
    interactions: InteractionLog
    jobs: RunLog
    coordination: Coordination
    closer: Callable[[], None]

    def close(self) -> None:
        """Release every connection; the stores are unusable after."""
        self.closer()
