"""The ledger: the source of truth for entries, their state and their vectors, on SQLite or
Postgres alike, one module per port it serves (``service.domain.ports.ledger``)."""

from __future__ import annotations

from service.stores.ledger.changes import SqlChangeLog
from service.stores.ledger.entries import SqlEntries
from service.stores.ledger.erasure import SqlErasures
from service.stores.ledger.index_state import SqlIndexState
from service.stores.ledger.inventory import SqlInventory
from service.stores.ledger.namespaces import SqlNamespaceEntries
from service.stores.ledger.passages import SqlPassages
from service.stores.ledger.references import SqlReferences
from service.stores.ledger.relations import SqlRelations
from service.stores.ledger.removed import SqlRemovedEntries


class SqlLedger(
    SqlEntries,
    SqlPassages,
    SqlIndexState,
    SqlInventory,
    SqlRelations,
    SqlChangeLog,
    SqlNamespaceEntries,
    SqlRemovedEntries,
    SqlErasures,
    SqlReferences,
):
    """Every port of the ledger on one database, in a process of its own or shared by the
    replicas of a cluster (``service.domain.ports.Ledger``)."""

    def close(self) -> None:
        """Nothing of its own to release: the database is closed by whoever opened it."""


__all__ = ["SqlLedger"]
