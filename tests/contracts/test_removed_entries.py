"""What the ledger keeps of entries removed for good, read a page at a time for an export
and written back by an import: for the fake, SQLite and Postgres alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.domain.entries import HistoryEvent, RemovedEntry, StoredEntry
from service.domain.ports import Ledger
from tests.fakes import T0, FakeLedger, make_entry
from tests.postgres import POSTGRES
from tests.stores import durable_opener


@pytest.fixture(params=["fake", "sqlite", POSTGRES])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Ledger:
    if request.param == "fake":
        return FakeLedger()
    return durable_opener(request, tmp_path)().ledger


def put(ledger: Ledger, namespace: str, *ids: str) -> None:
    entries = [make_entry(i, f"text {i}", "A", namespace) for i in ids]
    ledger.put([StoredEntry(e, ()) for e in entries], actor="ann", at=T0)


def test_removed_entries_are_paged_by_id_with_their_history(ledger: Ledger) -> None:
    put(ledger, "ns", "a", "b", "c", "d")
    put(ledger, "ns2", "a")
    put(ledger, "n", "a")
    ledger.remove(["ns:d", "ns:b", "ns2:a"], actor="bob", at=T0 + 5)
    first = ledger.removed_page("ns", "", 1)
    assert [r.key for r in first] == ["ns:b"]
    assert [(h.action, h.actor) for h in first[0].history] == [
        ("created", "ann"),
        ("deleted", "bob"),
    ]
    assert first[0].history[-1].at == T0 + 5
    assert [r.key for r in ledger.removed_page("ns", "b", 5)] == ["ns:d"]
    assert ledger.removed_page("ns", "d", 5) == []
    assert [r.key for r in ledger.removed_page("ns2", "", 5)] == ["ns2:a"]
    assert ledger.removed_page("n", "", 5) == []


def test_restored_trails_read_back_and_leave_entries_alone(ledger: Ledger) -> None:
    put(ledger, "ns", "live")
    trail = (
        HistoryEvent(T0, "created", "ann"),
        HistoryEvent(T0 + 1, "deleted", "bob"),
    )
    given = [RemovedEntry("ns:gone", trail), RemovedEntry("ns:live", trail)]
    assert ledger.restore_removed(given) == 1
    assert ledger.removed_page("ns", "", 5) == [RemovedEntry("ns:gone", trail)]
    assert ledger.history("ns:live") == [HistoryEvent(T0, "created", "ann")]
    assert ledger.get(["ns:gone"]) == {}
    assert ledger.restore_removed(given) == 0  # already as given
    other = (HistoryEvent(T0 + 2, "deleted", "cy"),)
    assert ledger.restore_removed([RemovedEntry("ns:gone", other)]) == 1
    assert ledger.history("ns:gone") == list(other)  # what it had is replaced
