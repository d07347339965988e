"""An in-memory ledger, one module per port as ``service.stores.ledger`` is."""

from __future__ import annotations

from tests.fakes.ledger.changes import FakeChangeLog
from tests.fakes.ledger.entries import FakeEntries, FakePassages
from tests.fakes.ledger.index_state import FakeIndexState
from tests.fakes.ledger.inventory import FakeInventory
from tests.fakes.ledger.namespaces import FakeNamespaceEntries
from tests.fakes.ledger.references import FakeReferences
from tests.fakes.ledger.relations import FakeHistory


class FakeLedger(
    FakeEntries,
    FakePassages,
    FakeIndexState,
    FakeInventory,
    FakeHistory,
    FakeChangeLog,
    FakeNamespaceEntries,
    FakeReferences,
):
    """Every port of the ledger on one in-memory state, as ``SqlLedger`` serves them."""


__all__ = ["FakeLedger"]
