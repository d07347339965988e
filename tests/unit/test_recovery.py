"""Crash-only recovery: every acknowledged write reaches the indexes, and a row that cannot
be indexed is set aside instead of stopping the service."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from service.application import upkeep
from service.domain.entries import Quarantined, StoredEntry
from service.domain.errors import IndexUnavailable
from service.domain.memory import Memory
from service.domain.memory.outcomes import Recovered
from service.lifespan import catch_up
from tests.fakes import T0, FakeKeywordStore, FakeLedger, fake_memory, make_entry

BEYOND_9999 = 253_402_300_800.0 + 86_400


class FlakyKeywords(FakeKeywordStore):
    """Refuses the keys in ``refused``, or everything while ``down``."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: set[str] = set()
        self.down = False

    def apply(self, upserts: Sequence[StoredEntry], deletes: Sequence[str]) -> None:
        if self.down or any(s.entry.key in self.refused for s in upserts):
            raise RuntimeError("index refused the change")
        super().apply(upserts, deletes)


@pytest.fixture
def ledger() -> FakeLedger:
    return FakeLedger(lambda: T0)


@pytest.fixture
def keywords() -> FlakyKeywords:
    return FlakyKeywords()


@pytest.fixture
def memory(ledger: FakeLedger, keywords: FlakyKeywords) -> Memory:
    return fake_memory(clock=lambda: T0, ledger=ledger, keywords=keywords).memory


def poisoned(memory: Memory, key_id: str) -> StoredEntry:
    """A row as an older version could have stored it: dated after 9999-12-31."""
    (stored,) = memory.preparer.prepare([make_entry(key_id, "a poisoned row", "E")])
    return dataclasses.replace(
        stored, entry=dataclasses.replace(stored.entry, timestamp=BEYOND_9999)
    )


def test_a_row_that_cannot_be_indexed_is_set_aside_and_the_rest_recovered(
    memory: Memory, ledger: FakeLedger, keywords: FlakyKeywords
) -> None:
    good = memory.preparer.prepare([make_entry("good", "deploy went fine", "E")])
    ledger.put([poisoned(memory, "bad"), *good])
    assert memory.repair.recover() == Recovered(indexed=1, removed=0, quarantined=1)
    assert set(keywords.entries) == {"ns:good"}
    (aside,) = ledger.quarantined()
    assert aside.key == "ns:bad" and "outside 1970-01-01..9999-12-31" in aside.reason
    assert memory.repair.recover() == Recovered(indexed=0, removed=0, quarantined=0)


def test_a_row_the_index_refuses_alone_is_set_aside(
    memory: Memory, ledger: FakeLedger, keywords: FlakyKeywords
) -> None:
    ledger.put(memory.preparer.prepare([make_entry(n, f"entry {n}", "E") for n in ("a", "b", "c")]))
    keywords.refused = {"ns:b"}
    assert memory.repair.recover() == Recovered(indexed=2, removed=0, quarantined=1)
    assert ledger.quarantined() == [
        Quarantined("ns:b", "indexing failed (RuntimeError: index refused the change)", T0)
    ]
    memory.writer.write([make_entry("b", "entry b, written again", "E")])
    assert ledger.quarantined() == [] and ledger.states["ns:b"] == "pending"


def test_when_the_index_refuses_everything_nothing_is_set_aside(
    memory: Memory, ledger: FakeLedger, keywords: FlakyKeywords
) -> None:
    ledger.put(memory.preparer.prepare([make_entry(n, f"entry {n}", "E") for n in ("a", "b")]))
    keywords.down = True
    with pytest.raises(IndexUnavailable):
        memory.repair.recover()
    assert ledger.quarantined() == []
    assert set(ledger.states.values()) == {"pending"}


def test_a_write_the_index_fails_is_acknowledged_and_applied_later(
    memory: Memory, ledger: FakeLedger, keywords: FlakyKeywords
) -> None:
    keywords.down = True
    outcome = memory.writer.write([make_entry("w", "stored while the index was down", "E")])
    assert (outcome.ids, outcome.indexed) == (["w"], 0)
    assert ledger.states == {"ns:w": "pending"}
    assert keywords.entries == {}
    keywords.down = False
    assert upkeep.recover_pending(memory.repair) == {
        "indexed": 1,
        "removed": 0,
        "quarantined": 0,
    }
    assert set(keywords.entries) == {"ns:w"} and ledger.states == {"ns:w": "synced"}


def test_a_failed_change_leaves_nothing_staged_for_the_next(
    memory: Memory, keywords: FlakyKeywords
) -> None:
    memory.writer.write([make_entry("a", "first", "E")])
    keywords.refused = {"ns:b"}
    memory.writer.write([make_entry("b", "refused", "E")])
    keywords.refused = set()
    memory.writer.write([make_entry("c", "third", "E")])
    assert set(keywords.entries) == {"ns:a", "ns:c"}


def test_starting_never_fails_on_what_the_ledger_holds(
    memory: Memory, ledger: FakeLedger, keywords: FlakyKeywords
) -> None:
    ledger.put([poisoned(memory, "bad"), *memory.preparer.prepare([make_entry("ok", "fine", "E")])])
    degraded: list[str] = []
    keywords.down = True
    catch_up(memory.repair, degraded)
    assert degraded and "indexes behind the ledger" in degraded[0]
    keywords.down = False
    degraded.clear()
    catch_up(memory.repair, degraded)
    assert degraded == [] and set(keywords.entries) == {"ns:ok"}
    assert [q.key for q in ledger.quarantined()] == ["ns:bad"]


def test_rebuild_sets_aside_what_cannot_be_indexed(
    memory: Memory, ledger: FakeLedger, keywords: FlakyKeywords
) -> None:
    memory.writer.write([make_entry("ok", "fine", "E")])
    bad = poisoned(memory, "bad")
    ledger.put([bad])
    ledger.mark_synced(["ns:bad"])
    assert memory.repair.rebuild() == 1
    assert set(keywords.entries) == {"ns:ok"}
    assert [q.key for q in ledger.quarantined()] == ["ns:bad"]
