"""A replica's keyword index following the ledger's change log, on fakes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import pytest

from service.domain.cluster.replication import Follower
from service.domain.entries import StoredEntry
from service.domain.model import Change
from tests.fakes import (
    T0,
    FakeCheckpoint,
    FakeClock,
    FakeKeywordStore,
    FakeLedger,
    FakeVectorStore,
    fake_memory,
    make_entry,
)


class Replica:
    """What one replica holds of its own over the shared ledger: an index, a checkpoint,
    the memory that writes through it and the follower that keeps it up with the others."""

    def __init__(self, ledger: FakeLedger, vectors: FakeVectorStore, clock: FakeClock) -> None:
        self.keywords = FakeKeywordStore()
        self.checkpoint = FakeCheckpoint()
        self.dropped: list[set[str]] = []
        self.memory = fake_memory(
            clock=clock,
            ledger=ledger,
            vectors=vectors,
            keywords=self.keywords,
            on_change=lambda namespaces: self.dropped.append(set(namespaces)),
        ).memory
        self.follower = Follower(ledger, self.memory.indexes, self.checkpoint, batch=3)

    def texts(self) -> dict[str, str]:
        return {key: s.entry.text for key, s in self.keywords.entries.items()}


@pytest.fixture
def ledger(clock: FakeClock) -> FakeLedger:
    return FakeLedger(clock)


@pytest.fixture
def vectors() -> FakeVectorStore:
    return FakeVectorStore()


@pytest.fixture
def one(ledger: FakeLedger, vectors: FakeVectorStore, clock: FakeClock) -> Replica:
    replica = Replica(ledger, vectors, clock)
    replica.follower.start_up()
    return replica


@pytest.fixture
def two(ledger: FakeLedger, vectors: FakeVectorStore, clock: FakeClock) -> Replica:
    replica = Replica(ledger, vectors, clock)
    replica.follower.start_up()
    return replica


def in_ledger(ledger: FakeLedger) -> dict[str, str]:
    return {s.entry.key: s.entry.text for batch in ledger.scan() for s in batch}


def test_each_replica_sees_the_writes_deletes_and_promotions_of_the_other(
    one: Replica, two: Replica, ledger: FakeLedger
) -> None:
    one.memory.writer.write([make_entry("a", "alice likes tea"), make_entry("c", "standup", "C")])
    assert set(one.keywords.keys) == {"ns:a", "ns:c"}  # the writer reads its writes at once
    assert two.keywords.keys == set()
    assert two.follower.catch_up() == 2
    assert two.texts() == {"ns:a": "alice likes tea", "ns:c": "standup"}

    two.memory.lifecycle.delete(["ns:a"])
    two.memory.lifecycle.promote(["ns:c"])
    one.follower.catch_up()
    assert one.keywords.keys == {"ns:c"}
    assert one.keywords.entries["ns:c"].entry.tier == "A"
    two.follower.catch_up()
    assert one.texts() == two.texts() == in_ledger(ledger)


def test_the_namespaces_a_batch_touched_drop_their_cached_searches(
    one: Replica, two: Replica
) -> None:
    one.memory.writer.write(
        [make_entry("a", "tea", namespace="alice"), make_entry("b", "x", namespace="bob")]
    )
    two.dropped.clear()
    two.follower.catch_up()
    assert set().union(*two.dropped) == {"alice", "bob"}
    two.dropped.clear()
    two.follower.catch_up()
    assert two.dropped == []  # nothing new, nothing dropped


def test_changes_are_applied_as_the_ledger_holds_the_entry_now(
    one: Replica, two: Replica, ledger: FakeLedger
) -> None:
    one.memory.writer.write([make_entry("a", "first")])
    one.memory.writer.write([make_entry("a", "second")])
    one.memory.writer.write([make_entry("b", "gone soon")])
    one.memory.lifecycle.delete(["ns:b"])
    two.follower.catch_up()
    assert two.texts() == {"ns:a": "second"}
    # Replaying everything from the start changes nothing: each key gets its state now.
    two.follower.applied = 0
    two.follower.catch_up()
    assert two.texts() == {"ns:a": "second"}
    assert two.checkpoint.seq == ledger.last_seq


def test_an_entry_set_aside_in_quarantine_leaves_every_index(
    one: Replica, two: Replica, ledger: FakeLedger
) -> None:
    one.memory.writer.write([make_entry("a", "fine"), make_entry("b", "bad row")])
    two.follower.catch_up()
    ledger.quarantine({"ns:b": "cannot be indexed"}, at=T0)
    two.follower.catch_up()
    assert two.keywords.keys == {"ns:a"}


def test_a_row_no_index_can_take_is_left_out_not_applied(
    one: Replica, two: Replica, ledger: FakeLedger
) -> None:
    one.memory.writer.write([make_entry("a", "fine")])
    stored = ledger.entries["ns:a"]
    ledger.put([StoredEntry(replace(stored.entry, timestamp=float("inf")), stored.chunks)])
    two.follower.catch_up()
    assert two.keywords.keys == set()
    assert two.checkpoint.seq == ledger.last_seq  # it does not hold the others up


def test_a_fresh_replica_rebuilds_from_the_ledger_without_replaying_the_log(
    one: Replica, ledger: FakeLedger, vectors: FakeVectorStore, clock: FakeClock
) -> None:
    one.memory.writer.write([make_entry(str(n), f"entry {n}") for n in range(7)])
    one.memory.lifecycle.delete(["ns:3"])
    fresh = Replica(ledger, vectors, clock)
    ledger.reads.clear()
    assert fresh.follower.start_up() == 0
    assert fresh.texts() == in_ledger(ledger)
    assert fresh.checkpoint.seq == ledger.last_seq
    assert [read for read, _ in ledger.reads] == []  # entries came from one scan


def test_a_checkpoint_below_the_horizon_rebuilds(
    one: Replica, ledger: FakeLedger, vectors: FakeVectorStore, clock: FakeClock
) -> None:
    away = Replica(ledger, vectors, clock)
    away.follower.start_up()
    one.memory.writer.write([make_entry("a", "while it was away")])
    one.memory.lifecycle.delete(["ns:a"])
    one.memory.writer.write([make_entry("b", "kept")])
    clock.advance(8 * 86400)
    one.memory.writer.write([make_entry("c", "recent")])
    assert ledger.trim_changes(before=clock() - 7 * 86400) > 0
    stale = away.checkpoint.seq
    assert stale is not None and stale < ledger.horizon

    back = Replica(ledger, vectors, clock)
    back.checkpoint.seq = stale
    back.keywords.apply([ledger.entries["ns:c"]], ())  # an index that is not empty
    back.follower.start_up()
    assert back.texts() == in_ledger(ledger) == {"ns:b": "kept", "ns:c": "recent"}


def test_changes_trimmed_while_a_replica_runs_make_it_rebuild(
    one: Replica, two: Replica, ledger: FakeLedger, clock: FakeClock
) -> None:
    one.memory.writer.write([make_entry("a", "missed")])
    clock.advance(10)
    one.memory.writer.write([make_entry("b", "seen")])
    ledger.trim_changes(before=clock() - 5)
    two.follower.catch_up()
    assert two.texts() == {"ns:a": "missed", "ns:b": "seen"}


@pytest.mark.parametrize("case", ["past the latest change", "empty index"])
def test_a_checkpoint_the_ledger_cannot_have_given_or_an_empty_index_rebuilds(
    one: Replica, ledger: FakeLedger, vectors: FakeVectorStore, clock: FakeClock, case: str
) -> None:
    one.memory.writer.write([make_entry("a", "in the ledger")])
    replica = Replica(ledger, vectors, clock)
    replica.checkpoint.seq = ledger.last_seq + 100 if case == "past the latest change" else 1
    replica.follower.start_up()
    assert replica.texts() == {"ns:a": "in the ledger"}
    assert replica.checkpoint.seq == ledger.last_seq


def test_a_checkpoint_within_the_log_is_caught_up_not_rebuilt(
    one: Replica, ledger: FakeLedger, vectors: FakeVectorStore, clock: FakeClock
) -> None:
    one.memory.writer.write([make_entry("a", "before")])
    replica = Replica(ledger, vectors, clock)
    replica.follower.start_up()
    one.memory.writer.write([make_entry("b", "after")])
    restarted = Replica(ledger, vectors, clock)
    restarted.checkpoint.seq = replica.checkpoint.seq
    restarted.keywords.entries = dict(replica.keywords.entries)
    ledger.reads.clear()
    assert restarted.follower.start_up() == 1
    assert restarted.texts() == {"ns:a": "before", "ns:b": "after"}
    assert ledger.reads == [("get", ["ns:b"])]


def test_lag_is_the_age_of_the_oldest_change_not_applied(
    one: Replica, two: Replica, clock: FakeClock
) -> None:
    assert two.follower.lag().seconds == 0
    one.memory.writer.write([make_entry("a", "x")])
    clock.advance(2)
    one.memory.writer.write([make_entry("b", "y"), make_entry("c", "z")])
    clock.advance(3)
    lag = two.follower.lag()
    assert (lag.seconds, lag.changes) == (5, 3)
    two.follower.catch_up()
    lag = two.follower.lag()
    assert (lag.seconds, lag.changes, lag.checkpoint) == (0, 0, two.checkpoint.seq)


def test_the_replica_that_writes_is_never_overtaken_by_an_older_state(
    one: Replica, two: Replica, ledger: FakeLedger
) -> None:
    """The follower reads the ledger and applies under the writer's lock: a write here
    waits for it, and what the follower applied is never older than that write."""
    one.memory.writer.write([make_entry("a", "old")])
    read = threading.Event()
    proceed = threading.Event()
    real_get = ledger.get

    def slow_get(keys: Sequence[str]) -> dict[str, StoredEntry]:
        found = real_get(keys)
        read.set()
        proceed.wait(5)
        return found

    ledger.get = slow_get  # type: ignore[method-assign]
    follower = threading.Thread(target=two.follower.catch_up)
    follower.start()
    assert read.wait(5)
    ledger.get = real_get  # type: ignore[method-assign]
    writer = threading.Thread(target=two.memory.writer.write, args=([make_entry("a", "new")],))
    writer.start()
    writer.join(0.2)
    assert writer.is_alive(), "the write waits for the batch being applied"
    proceed.set()
    follower.join(5)
    writer.join(5)
    assert two.texts() == {"ns:a": "new"}


def test_a_running_follower_applies_changes_and_reports_a_failing_ledger(
    one: Replica, two: Replica, ledger: FakeLedger
) -> None:
    two.follower.start(0.01)
    try:
        one.memory.writer.write([make_entry("a", "x")])
        wait_for(lambda: two.keywords.keys == {"ns:a"})
        real = ledger.changes
        ledger.changes = broken  # type: ignore[method-assign]
        wait_for(lambda: two.follower.problem is not None)
        assert two.follower.problem == "ConnectionError: database away"
        ledger.changes = real  # type: ignore[method-assign]
        one.memory.writer.write([make_entry("b", "y")])
        wait_for(lambda: two.keywords.keys == {"ns:a", "ns:b"})
        wait_for(lambda: two.follower.problem is None)
    finally:
        two.follower.stop()


def broken(after: int, limit: int = 1000) -> list[Change]:
    raise ConnectionError("database away")


def wait_for(condition: Callable[[], bool], seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not within 5 s"
        time.sleep(0.005)


def test_an_erasure_erases_the_namespace_from_the_other_replicas_index(
    one: Replica, two: Replica
) -> None:
    one.memory.writer.write(
        [make_entry("a", "gone text"), make_entry("b", "kept", namespace="other")]
    )
    two.follower.catch_up()
    assert set(two.texts()) == {"ns:a", "other:b"}
    one.memory.transfer.erase_namespace("ns", "admin", {})
    assert set(one.texts()) == {"other:b"} and one.keywords.erased == ["ns"]
    assert two.follower.poll() == 1
    assert set(two.texts()) == {"other:b"}
    assert two.keywords.erased == ["ns"]  # its index whole, files and all
    assert two.follower.applied == two.follower.ledger.change_bounds().latest
    assert "ns" in set().union(*two.dropped)


def test_what_is_written_after_an_erasure_follows_it_in_the_same_batch(
    one: Replica, two: Replica
) -> None:
    one.memory.writer.write([make_entry("a", "gone text")])
    two.follower.catch_up()
    one.memory.transfer.erase_namespace("ns", "admin", {})
    one.memory.writer.write([make_entry("c", "written again")])
    assert two.follower.poll() == 2
    assert set(two.texts()) == {"ns:c"} and two.keywords.erased == ["ns"]
