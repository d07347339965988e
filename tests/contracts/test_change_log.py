"""The change log's contract, part of the ledger's: FakeLedger, SqliteLedger and
PostgresLedger. Replicas follow it to keep their indexes in step with a shared ledger."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from service.domain.model import Change
from service.domain.ports import Ledger
from tests.contracts.test_ledger import stored
from tests.fakes import T0, FakeClock, FakeLedger
from tests.postgres import POSTGRES
from tests.stores import durable_opener

OpenLedger = Callable[[], Ledger]


@pytest.fixture(params=["fake", "sqlite", POSTGRES])
def open_ledger(request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock) -> OpenLedger:
    """Opens a ledger on the test's storage, another view of the same entries each call
    (the one fake ledger, for ``fake``), timing with the test's clock."""
    if request.param == "fake":
        fake = FakeLedger(clock=clock)
        return lambda: fake
    open_stores = durable_opener(request, tmp_path, clock=clock)
    return lambda: open_stores().ledger


@pytest.fixture
def ledger(open_ledger: OpenLedger) -> Ledger:
    return open_ledger()


def logged(ledger: Ledger) -> list[tuple[str, float]]:
    """The changes the log holds, as (key, time), checking they come numbered upwards."""
    changes = ledger.changes(0)
    seqs = [c.seq for c in changes]
    assert seqs == sorted(set(seqs))
    return [(c.key, c.at) for c in changes]


def test_a_new_ledger_has_an_empty_log(ledger: Ledger) -> None:
    assert ledger.changes(0) == []
    bounds = ledger.change_bounds()
    assert (bounds.horizon, bounds.latest) == (0, 0)


def test_every_change_to_an_entry_is_logged_once_per_key(ledger: Ledger, clock: FakeClock) -> None:
    ledger.put([stored("a"), stored("b", "E")], at=T0)
    ledger.mark_synced(["ns:a", "ns:b"])  # indexing: not a change of the entries
    ledger.put([stored("a")], at=T0 + 1)
    clock.now = T0 + 2
    assert ledger.mark_deleting(["ns:b", "ns:b", "ns:missing"]) == ["ns:b", "ns:b"]
    ledger.quarantine({"ns:a": "boom", "ns:missing": "boom"}, at=T0 + 3)
    ledger.remove(["ns:b", "ns:missing"], at=T0 + 4)
    clock.now = T0 + 5
    ledger.remove(["ns:a"])
    ledger.put([], at=T0 + 6)
    ledger.remove([], at=T0 + 6)
    assert logged(ledger) == [
        ("ns:a", T0),
        ("ns:b", T0),
        ("ns:a", T0 + 1),
        ("ns:b", T0 + 2),
        ("ns:a", T0 + 3),
        ("ns:b", T0 + 4),
        ("ns:a", T0 + 5),
    ]
    assert ledger.change_bounds().latest == ledger.changes(0)[-1].seq


def test_changes_are_read_after_a_number_up_to_a_limit(ledger: Ledger) -> None:
    ledger.put([stored(str(n)) for n in range(5)], at=T0)
    everything = ledger.changes(0)
    assert [c.key for c in everything] == [f"ns:{n}" for n in range(5)]
    assert ledger.changes(everything[1].seq, limit=2) == everything[2:4]
    assert ledger.changes(everything[-1].seq) == []


def test_trimming_drops_old_changes_and_raises_the_horizon(ledger: Ledger) -> None:
    for n, at in enumerate([T0 + 10, T0 + 20, T0 + 30]):
        ledger.put([stored(str(n))], at=at)
    _, second, third = ledger.changes(0)
    assert ledger.trim_changes(T0 + 10) == 0
    assert ledger.change_bounds().horizon == 0
    assert ledger.trim_changes(T0 + 25) == 2
    assert ledger.changes(0) == [third]
    assert ledger.change_bounds().horizon == second.seq
    assert ledger.change_bounds().latest == third.seq
    assert ledger.trim_changes(T0 + 25) == 0
    assert ledger.change_bounds().horizon == second.seq
    assert ledger.trim_changes(T0 + 99) == 1
    assert ledger.changes(0) == []
    bounds = ledger.change_bounds()
    assert (bounds.horizon, bounds.latest) == (third.seq, third.seq)
    ledger.put([stored("next")], at=T0 + 100)
    (after,) = ledger.changes(third.seq)
    assert after.seq > third.seq and ledger.change_bounds().latest == after.seq


def test_trimming_leaves_no_older_number_behind(ledger: Ledger) -> None:
    """Changes made with an earlier time after a later one go with it: the log is whole
    above the horizon."""
    ledger.put([stored("late")], at=T0 + 30)
    ledger.put([stored("early")], at=T0 + 10)
    ledger.put([stored("kept")], at=T0 + 40)
    _, early, kept = ledger.changes(0)
    assert ledger.trim_changes(T0 + 20) == 2
    assert ledger.changes(0) == [kept]
    assert ledger.change_bounds().horizon == early.seq


def test_another_view_of_the_ledger_reads_the_same_log(open_ledger: OpenLedger) -> None:
    first, second = open_ledger(), open_ledger()
    first.put([stored("a")], at=T0)
    second.put([stored("b")], at=T0 + 1)
    assert second.changes(0) == first.changes(0)
    assert [c.key for c in first.changes(0)] == ["ns:a", "ns:b"]
    first.trim_changes(T0 + 1)
    assert second.change_bounds() == first.change_bounds()


@pytest.mark.parametrize("open_ledger", ["sqlite", POSTGRES], indirect=True)
def test_a_reader_following_concurrent_writers_misses_no_change(
    open_ledger: OpenLedger,
) -> None:
    """Two writers on connections of their own; a reader on a third, reading on from the
    last number it saw, as a replica does: every change committed reaches it, once."""
    writers, writes, batch = 2, 80, 3
    reader = open_ledger()
    ledgers = [open_ledger() for _ in range(writers)]
    finished = threading.Event()
    followed: list[Change] = []
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            for w in range(writes):
                ledgers[n].put([stored(f"{n}-{w}-{b}") for b in range(batch)], at=T0)
        except BaseException as exc:
            errors.append(exc)

    def follow() -> None:
        checkpoint = 0
        while True:
            last_round = finished.is_set()
            changes = reader.changes(checkpoint, limit=50)
            followed.extend(changes)
            checkpoint = changes[-1].seq if changes else checkpoint
            if last_round and not changes:
                return
            if not changes:
                # A replica waits between polls that found nothing; a loop that never waits
                # starves the writers of the interpreter under a tracer (coverage).
                time.sleep(0.002)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    follower = threading.Thread(target=follow)
    follower.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    finished.set()
    follower.join()
    assert errors == []
    assert len(followed) == writers * writes * batch
    assert followed == reader.changes(0, limit=len(followed) + 1)


@pytest.mark.parametrize("open_ledger", ["sqlite", POSTGRES], indirect=True)
def test_writers_of_the_same_keys_in_any_order_all_succeed(open_ledger: OpenLedger) -> None:
    """Replicas writing the same new keys at once, in opposite orders: no write fails, and
    each entry is, chunks included, as one of them wrote it."""
    rounds = [[f"{r}.{n:02}" for n in range(20)] for r in range(10)]
    ledgers = [open_ledger(), open_ledger()]
    errors: list[BaseException] = []
    together = threading.Barrier(2)

    def write(n: int) -> None:
        try:
            for ids in rounds:
                order = ids if n == 0 else ids[::-1]
                together.wait()
                ledgers[n].put([stored(i, role=f"writer {n}") for i in order], at=T0)
        except BaseException as exc:
            errors.append(exc)
            together.abort()

    threads = [threading.Thread(target=write, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    keys = [f"ns:{i}" for ids in rounds for i in ids]
    found = ledgers[0].get(keys)
    assert len(found) == len(keys)
    for item in found.values():
        assert item in (stored(item.entry.id, role=f"writer {n}") for n in range(2))
    assert len(ledgers[0].changes(0, limit=1000)) == 2 * len(keys)
