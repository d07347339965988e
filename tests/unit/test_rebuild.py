"""Rebuilding the indexes from the ledger, and telling when they no longer match it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence

import pytest

from service.application.rebuild import Rebuilder
from service.domain.entries import Chunk, StoredEntry, Tier
from service.errors import Conflict
from service.settings import ChunkingSettings
from tests.fakes import (
    T0,
    FakeKeywordStore,
    FakeLedger,
    FakeStores,
    fake_memory,
    make_entry,
    make_filters,
    memory_over,
)
from tests.settings import CHUNKING

FOUR_WORDS = ChunkingSettings(words=4, overlap=1)


@pytest.fixture
def stores() -> FakeStores:
    return fake_memory(FOUR_WORDS, clock=lambda: T0)


def write_mix(stores: FakeStores) -> None:
    """Five entries: multi-chunk A, C, E, an archived A and an archived E."""
    stores.memory.writer.write(
        [
            make_entry("a", "alice prefers green tea over coffee", "A"),
            make_entry("c", "standup moved to ten", "C"),
            make_entry("e", "GET /health 200", "E"),
            make_entry("old_a", "an old decision", "A"),
            make_entry("old_e", "an old log", "E"),
        ]
    )
    stores.memory.lifecycle.set_archived(["ns:old_a", "ns:old_e"], True)


def snapshot(
    stores: FakeStores,
) -> tuple[dict[Tier, dict[str, tuple[StoredEntry, Chunk]]], dict[str, StoredEntry]]:
    vectors = {tier: dict(records) for tier, records in stores.vectors.records.items()}
    return vectors, dict(stores.keywords.entries)


# indexes_match_ledger


def test_indexes_match_after_writes_archiving_and_deletes(stores: FakeStores) -> None:
    write_mix(stores)
    assert stores.vectors.count("A") == 2  # "a" has two chunks; "old_a" is archived
    assert stores.ledger.vector_count() == 3
    assert stores.memory.repair.indexes_match_ledger()
    stores.memory.lifecycle.delete(["ns:a", "ns:e"])
    assert stores.memory.repair.indexes_match_ledger()


def test_indexes_match_on_empty_stores(stores: FakeStores) -> None:
    assert stores.memory.repair.indexes_match_ledger()


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: s.vectors.clear(),
        lambda s: s.keywords.clear(),
        lambda s: s.keywords.apply((), ["ns:e"]),
        lambda s: s.vectors.delete(["ns:c"]),
        # One stray chunk record is enough.
        lambda s: s.vectors.records["A"].pop("ns:a#1"),
        # An archived entry's vectors back in the index.
        lambda s: s.vectors.upsert([s.ledger.entries["ns:old_a"]]),
        # Entries the ledger never had.
        lambda s: s.keywords.apply(s.memory.preparer.prepare([make_entry("x", "stray", "E")]), ()),
    ],
)
def test_indexes_do_not_match_after_damage(
    stores: FakeStores, damage: Callable[[FakeStores], object]
) -> None:
    write_mix(stores)
    damage(stores)
    assert not stores.memory.repair.indexes_match_ledger()


# rebuild


def test_rebuild_restores_both_indexes_as_they_were(stores: FakeStores) -> None:
    write_mix(stores)
    before = snapshot(stores)
    stores.vectors.clear()
    stores.keywords.clear()
    calls = len(stores.embedder.calls)
    assert stores.memory.repair.rebuild() == 5
    assert len(stores.embedder.calls) == calls  # vectors come from the ledger
    assert snapshot(stores) == before
    assert stores.memory.repair.indexes_match_ledger()
    assert stores.vectors.tiers["A"].keys() == {"ns:a"}
    assert stores.vectors.tiers["C"].keys() == {"ns:c"}
    assert stores.keywords.keys == {"ns:a", "ns:c", "ns:e", "ns:old_a", "ns:old_e"}


def test_rebuild_removes_what_the_ledger_does_not_have(stores: FakeStores) -> None:
    write_mix(stores)
    stray = stores.memory.preparer.prepare([make_entry("x", "stray words here", "A")])
    stores.vectors.upsert(stray)
    stores.keywords.apply(stray, ())
    stores.vectors.upsert([stores.ledger.entries["ns:old_a"]])  # archived: out of Chroma
    assert not stores.memory.repair.indexes_match_ledger()
    stores.memory.repair.rebuild()
    assert stores.vectors.keys == {"ns:a", "ns:c"}
    assert "ns:x" not in stores.keywords.keys
    assert stores.memory.repair.indexes_match_ledger()


def test_rebuild_reports_progress_per_batch(stores: FakeStores) -> None:
    write_mix(stores)
    stores.ledger.scan_batch = 2
    stores.keywords.clear()
    seen: list[int] = []
    assert stores.memory.repair.rebuild(progress=seen.append) == 5
    assert seen == [2, 4, 5]
    assert stores.memory.repair.indexes_match_ledger()


def test_rebuild_of_an_empty_ledger_empties_the_indexes(stores: FakeStores) -> None:
    stray = stores.memory.preparer.prepare([make_entry("x", "stray", "A")])
    stores.vectors.upsert(stray)
    stores.keywords.apply(stray, ())
    seen: list[int] = []
    assert stores.memory.repair.rebuild(progress=seen.append) == 0
    assert seen == []
    assert stores.vectors.keys == set() and stores.keywords.keys == set()


def test_rebuilt_indexes_give_the_same_searches(stores: FakeStores) -> None:
    write_mix(stores)
    filters = make_filters(include_archived=True)
    vector = stores.embedder.vector("green tea")
    before = (
        stores.keywords.search("old tea standup", filters, 10),
        stores.vectors.search("A", vector, filters, 10),
    )
    stores.vectors.clear()
    stores.keywords.clear()
    stores.memory.repair.rebuild()
    after = (
        stores.keywords.search("old tea standup", filters, 10),
        stores.vectors.search("A", vector, filters, 10),
    )
    assert after == before


def test_rebuild_skips_entries_being_deleted(stores: FakeStores) -> None:
    write_mix(stores)
    stores.ledger.mark_deleting(["ns:a"])  # a delete interrupted by a crash
    assert stores.memory.repair.rebuild() == 4
    assert "ns:a" not in stores.vectors.keys and "ns:a" not in stores.keywords.keys


def test_failed_rebuild_keeps_the_old_keyword_index(stores: FakeStores) -> None:
    write_mix(stores)
    before = dict(stores.keywords.entries)

    def boom(done: int) -> None:
        raise RuntimeError("disk full")

    stores.ledger.scan_batch = 2
    with pytest.raises(RuntimeError):
        stores.memory.repair.rebuild(progress=boom)
    assert stores.keywords.entries == before


def test_rebuild_drops_vectors_left_in_the_wrong_tier(stores: FakeStores) -> None:
    """A vector index restored from before a promotion still holds the entry under C.

    BUG (service/domain/memory.py, Memory.rebuild): orphans are removed by entry key only
    (``entry_keys()`` minus the keys just upserted), so a stale record of a live entry in
    another tier's collection survives the rebuild: ``indexes_match_ledger`` stays False
    (and startup rebuilds on every start), and tier C vector searches keep returning it.
    """
    stores.memory.writer.write([make_entry("d", "we version the API", "C")])
    stale = stores.ledger.entries["ns:d"]
    stores.memory.lifecycle.promote(["ns:d"])
    stores.vectors.upsert([stale])  # the old C record is back
    stores.memory.repair.rebuild()
    assert stores.vectors.tiers["C"] == {}
    assert stores.memory.repair.indexes_match_ledger()


def test_rebuild_drops_chunk_records_an_entry_no_longer_has(stores: FakeStores) -> None:
    """BUG (Memory.rebuild), like the above: a restored index holding an older, longer
    version of an entry keeps its extra chunk records (``key#n`` past the current last
    chunk), which vector searches can still return."""
    stores.memory.writer.write([make_entry("a", "one two three four five six seven eight", "A")])
    longer = stores.ledger.entries["ns:a"]
    stores.memory.writer.write([make_entry("a", "one two", "A")])
    stores.vectors.upsert([longer])
    stores.memory.repair.rebuild()
    assert set(stores.vectors.records["A"]) == {"ns:a#0"}
    assert stores.memory.repair.indexes_match_ledger()


# Rebuilder: the rebuild in the background


class GatedLedger(FakeLedger):
    """A ledger whose scan waits until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.scanning = threading.Event()
        self.gate = threading.Event()

    def scan(self, batch: int | None = None) -> Iterator[list[StoredEntry]]:
        self.scanning.set()
        assert self.gate.wait(10), "test never opened the gate"
        yield from super().scan(batch)


class FailingKeywordStore(FakeKeywordStore):
    def replace_all(self, batches: Iterable[Sequence[StoredEntry]]) -> None:
        raise OSError("index directory is read-only")


def test_rebuilder_runs_in_the_background_and_reports_status(stores: FakeStores) -> None:
    write_mix(stores)
    ticks = iter([10.0, 20.0])
    rebuilder = Rebuilder(stores.memory.repair, stores.ledger, clock=lambda: next(ticks))
    assert rebuilder.status.state == "idle"
    started = rebuilder.start()
    assert (started.total, started.started_at) == (5, 10.0)
    rebuilder.wait(10)
    status = rebuilder.status
    assert (status.state, status.done, status.total, status.error) == ("done", 5, 5, None)
    assert status.finished_at == 20.0
    assert stores.memory.repair.indexes_match_ledger()


def test_rebuilder_refuses_a_second_rebuild_while_one_runs() -> None:
    ledger = GatedLedger()
    memory = fake_memory(clock=lambda: T0, ledger=ledger).memory
    memory.writer.write([make_entry("a", "x", "A")])
    rebuilder = Rebuilder(memory.repair, ledger, clock=lambda: T0)
    rebuilder.start()
    try:
        assert ledger.scanning.wait(10)
        with pytest.raises(Conflict):
            rebuilder.start()
        assert rebuilder.status.state == "running"
    finally:
        ledger.gate.set()
        rebuilder.wait(10)
    assert rebuilder.status.state == "done"
    rebuilder.start()  # a finished rebuild may be started again
    rebuilder.wait(10)
    assert (rebuilder.status.state, rebuilder.status.done) == ("done", 1)


def test_rebuilder_reports_a_failure(stores: FakeStores) -> None:
    memory = memory_over(
        stores.ledger,
        stores.vectors,
        FailingKeywordStore(),
        stores.embedder,
        CHUNKING,
        clock=lambda: T0,
    )
    rebuilder = Rebuilder(memory.repair, stores.ledger, clock=lambda: T0)
    rebuilder.start()
    rebuilder.wait(10)
    assert rebuilder.status.state == "failed"
    assert rebuilder.status.error == "OSError: index directory is read-only"
    assert rebuilder.status.finished_at == T0


def test_rebuild_of_a_stored_entry_keeps_it_as_the_ledger_has_it(stores: FakeStores) -> None:
    write_mix(stores)
    stores.keywords.clear()
    stores.memory.repair.rebuild()
    entry: StoredEntry = stores.keywords.entries["ns:old_a"]
    assert entry == stores.ledger.entries["ns:old_a"]
    assert entry.entry.archived
