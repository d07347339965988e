"""``Loop``: a body on a thread of its own, run from ``start`` until ``stop`` returns."""

from __future__ import annotations

import threading

from service.lib.loops import Loop


def test_the_body_runs_on_its_named_thread_until_stop_and_stop_waits_for_it() -> None:
    rounds: list[str] = []
    started = threading.Event()

    def body(stopping: threading.Event) -> None:
        started.set()
        while not stopping.wait(0.001):
            rounds.append(threading.current_thread().name)
        rounds.append("done")

    loop = Loop("worker")
    loop.start(body)
    assert started.wait(5)
    loop.stop()
    assert rounds[-1] == "done", "stop returns once the body has"
    assert set(rounds[:-1]) <= {"worker"}


def test_a_loop_starts_again_after_stop_and_stop_without_start_does_nothing() -> None:
    loop = Loop("worker")
    loop.stop()
    runs: list[str] = []

    def body(stopping: threading.Event) -> None:
        stopping.wait()
        runs.append("ran")

    for _ in range(2):
        loop.start(body)
        loop.stop()
    assert runs == ["ran", "ran"]
