"""The read pool takes turns between callers: one caller's calls never hold every thread,
and a newcomer's call goes before the rest of a busy caller's."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import pytest

from service.lib.fair import ASKER, RECENT, FairExecutor, Recent, asking, shared
from tests.fakes import FakeClock


def _submit(pool: FairExecutor, who: str, call: Callable[..., Any], *args: Any) -> Future[Any]:
    with asking(who):
        return pool.submit(call, *args)


def test_results_and_errors_reach_the_caller() -> None:
    pool = FairExecutor(2)
    try:
        assert _submit(pool, "a", lambda x: x * 2, 21).result(5) == 42
        failed = _submit(pool, "a", lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            failed.result(5)
    finally:
        pool.shutdown()


def _running(futures: list[Future[Any]], count: int) -> bool:
    """Whether ``count`` of ``futures`` come to run within a few seconds."""
    deadline = time.monotonic() + 5
    while sum(f.running() for f in futures) != count and time.monotonic() < deadline:
        time.sleep(0.005)
    return sum(f.running() for f in futures) == count


def test_one_caller_never_holds_every_thread() -> None:
    pool = FairExecutor(4)
    gate = threading.Event()
    try:
        busy = [_submit(pool, "attacker", gate.wait, 10) for _ in range(8)]
        # Alone, three of the attacker's calls run and five wait ...
        assert _running(busy, 3)
        assert pool.waiting() == {"attacker": 5}
        # ... and another caller's runs at once.
        assert _submit(pool, "victim", lambda: "served").result(5) == "served"
        gate.set()
        assert all(f.result(5) for f in busy)
    finally:
        gate.set()
        pool.shutdown()


def test_while_others_ask_each_starts_calls_up_to_an_equal_share() -> None:
    clock = FakeClock()
    pool = FairExecutor(5, recent=Recent(clock))  # four threads shared, one kept
    gates = [threading.Event() for _ in range(8)]
    try:
        busy = [_submit(pool, "attacker", gate.wait, 10) for gate in gates]
        assert _running(busy, 4)
        victim_gate = threading.Event()
        victim = _submit(pool, "victim", victim_gate.wait, 10)
        assert _running([victim], 1)
        # Two ask: the attacker starts calls again only below two running.
        gates[0].set()
        gates[1].set()
        busy[0].result(5)
        busy[1].result(5)
        assert _running(busy, 2)
        time.sleep(0.05)
        assert sum(f.running() for f in busy) == 2 and pool.waiting() == {"attacker": 4}
        gates[2].set()
        busy[2].result(5)
        assert _running(busy, 2) and pool.waiting() == {"attacker": 3}
        # The victim gone and quiet for a while, the attacker has all four again.
        victim_gate.set()
        victim.result(5)
        clock.advance(RECENT + 0.1)
        gates[3].set()
        busy[3].result(5)
        assert _running(busy, 4)
    finally:
        for gate in gates:
            gate.set()
        pool.shutdown()


def test_turns_go_round_between_callers() -> None:
    pool = FairExecutor(1)
    gate = threading.Event()
    started: list[str] = []

    def note(name: str) -> None:
        started.append(name)

    try:
        first = _submit(pool, "a", gate.wait, 10)
        later = [_submit(pool, "a", note, f"a{n}") for n in range(3)]
        later += [_submit(pool, "b", note, f"b{n}") for n in range(2)]
        gate.set()
        first.result(5)
        for f in later:
            f.result(5)
        # "a" had its turn (the call that waited at the gate): "b" goes next, then each in turn.
        assert started == ["b0", "a0", "b1", "a1", "a2"]
    finally:
        gate.set()
        pool.shutdown()


def test_the_asker_is_read_where_the_call_is_submitted() -> None:
    pool = FairExecutor(2)
    gate = threading.Event()
    try:
        with asking("x"):
            held = [pool.submit(gate.wait, 10)]
            assert ASKER.get() == "x"
        assert ASKER.get() == ""
        # "x" holds its one place; a call of no one in particular is another caller's.
        assert pool.submit(lambda: 7).result(5) == 7
        gate.set()
        held[0].result(5)
    finally:
        gate.set()
        pool.shutdown()


def test_shutdown_finishes_what_was_submitted_and_refuses_more() -> None:
    pool = FairExecutor(2)
    done = [_submit(pool, "a", time.sleep, 0.01) for _ in range(4)]
    pool.shutdown(wait=True)
    assert all(f.done() for f in done)
    with pytest.raises(RuntimeError):
        pool.submit(lambda: None)


def test_cancelled_calls_never_run() -> None:
    pool = FairExecutor(1)
    gate = threading.Event()
    ran: list[int] = []
    try:
        first = _submit(pool, "a", gate.wait, 10)
        waiting = _submit(pool, "a", ran.append, 1)
        assert waiting.cancel()
        gate.set()
        first.result(5)
        pool.shutdown(wait=True)
        assert ran == []
    finally:
        gate.set()


def test_a_call_knows_whether_others_asked_when_it_started() -> None:
    """Work that could take every core takes one while other callers ask, of either pool
    sharing the account of who asks."""
    reads = FairExecutor(2)
    writes = FairExecutor(2, recent=reads.recent)
    gate = threading.Event()
    try:
        assert _submit(writes, "writer", shared).result(5) is False
        held = _submit(reads, "reader", gate.wait, 10)
        assert _running([held], 1)
        assert _submit(writes, "writer", shared).result(5) is True
        gate.set()
        held.result(5)
        assert shared() is False  # not a pool's thread
    finally:
        gate.set()
        reads.shutdown()
        writes.shutdown()


def test_while_others_ask_a_share_counts_the_calls_of_every_pool_sharing_the_account() -> None:
    """A caller writing while another asks holds its share with the write: its read waits
    for it, and starts as soon as it ends; alone, it reads while it writes."""
    clock = FakeClock()
    reads = FairExecutor(4, recent=Recent(clock))
    writes = FairExecutor(2, recent=reads.recent)
    write_gate, victim_gate = threading.Event(), threading.Event()
    try:
        writing = _submit(writes, "attacker", write_gate.wait, 10)
        assert _running([writing], 1)
        assert _submit(reads, "attacker", lambda: "read").result(5) == "read"  # alone
        victim = _submit(reads, "victim", victim_gate.wait, 10)
        assert _running([victim], 1)
        read = _submit(reads, "attacker", lambda: "read")
        time.sleep(0.05)
        assert not read.done() and reads.waiting() == {"attacker": 1}
        write_gate.set()  # the write ends in the other pool: the read starts
        assert read.result(5) == "read"
    finally:
        write_gate.set()
        victim_gate.set()
        reads.shutdown()
        writes.shutdown()


def test_a_call_held_to_its_share_starts_once_the_others_stopped_asking() -> None:
    """A caller's read held back while another asked, its share taken by its own write,
    starts once the other has not asked for ``RECENT`` seconds, the write still running: no
    call waits on an asker that has gone."""
    clock = FakeClock()
    reads = FairExecutor(4, recent=Recent(clock))
    writes = FairExecutor(2, recent=reads.recent)
    gate = threading.Event()
    try:
        writing = _submit(writes, "attacker", gate.wait, 10)
        assert _running([writing], 1)
        assert _submit(reads, "victim", lambda: "seen").result(5) == "seen"
        read = _submit(reads, "attacker", lambda: "read")
        time.sleep(0.05)
        assert not read.done()  # the victim asked within RECENT: the write is the share
        clock.advance(RECENT + 0.1)
        assert read.result(5) == "read"
        assert not writing.done()
    finally:
        gate.set()
        reads.shutdown()
        writes.shutdown()
