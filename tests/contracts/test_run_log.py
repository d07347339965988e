"""The run log's contract: FakeRunLog, SqliteRunLog and PostgresRunLog."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from service.domain.model import JobRun
from service.domain.ports import RunLog
from tests.fakes import T0, FakeRunLog
from tests.postgres import POSTGRES
from tests.stores import durable_opener

OpenRunLog = Callable[[], RunLog]


@pytest.fixture(params=["fake", "sqlite", POSTGRES])
def open_log(request: pytest.FixtureRequest, tmp_path: Path) -> OpenRunLog:
    """Opens a run log on the test's storage, another view of the same runs each call (as
    another replica has; the one fake log, for ``fake``)."""
    if request.param == "fake":
        fake = FakeRunLog()
        return lambda: fake
    open_stores = durable_opener(request, tmp_path)
    return lambda: open_stores().runs


@pytest.fixture
def log(open_log: OpenRunLog) -> RunLog:
    return open_log()


def test_a_run_reads_back_as_started_then_as_finished(log: RunLog) -> None:
    run = log.start("expire", "replica-1", T0, slot=T0)
    assert run is not None
    assert log.runs("expire") == [JobRun(run, "expire", "replica-1", T0, slot=T0)]
    log.finish(run, T0 + 2, {"expired": 3, "namespaces": ["a", "b"]}, None)
    assert log.runs("expire") == [
        JobRun(
            run,
            "expire",
            "replica-1",
            T0,
            finished_at=T0 + 2,
            result={"expired": 3, "namespaces": ["a", "b"]},
            slot=T0,
        )
    ]
    failed = log.start("archive", "replica-2", T0 + 5)
    assert failed is not None and failed != run
    log.finish(failed, T0 + 6, None, "disk full")
    (found,) = log.runs("archive")
    assert (found.error, found.result, found.slot) == ("disk full", None, None)
    assert log.runs("never") == []


def test_a_slot_is_claimed_once_per_job(open_log: OpenRunLog) -> None:
    first, second = open_log(), open_log()
    assert first.start("expire", "replica-1", T0, slot=T0) is not None
    assert second.start("expire", "replica-2", T0 + 1, slot=T0) is None
    assert first.start("expire", "replica-1", T0 + 1, slot=T0) is None
    assert second.start("archive", "replica-2", T0, slot=T0) is not None
    assert second.start("expire", "replica-2", T0 + 60, slot=T0 + 60) is not None
    assert [r.replica for r in first.runs("expire")] == ["replica-2", "replica-1"]


def test_runs_by_hand_are_never_refused(log: RunLog) -> None:
    runs = [log.start("optimize", "replica-1", T0 + n) for n in range(3)]
    assert None not in runs and len(set(runs)) == 3


def test_runs_come_newest_first_up_to_a_limit(log: RunLog) -> None:
    ids = [log.start("expire", "r", T0 + n, slot=T0 + n) for n in range(5)]
    assert [r.id for r in log.runs("expire", limit=3)] == ids[::-1][:3]


def test_the_last_run_of_each_job(open_log: OpenRunLog) -> None:
    first, second = open_log(), open_log()
    first.start("expire", "replica-1", T0)
    latest = second.start("expire", "replica-2", T0 + 10)
    archive = first.start("archive", "replica-1", T0 + 5)
    assert latest is not None and archive is not None
    second.finish(latest, T0 + 11, {"expired": 0}, None)
    last = first.last()
    assert sorted(last) == ["archive", "expire"]
    assert last["expire"].id == latest and last["expire"].result == {"expired": 0}
    assert last["archive"].id == archive and last["archive"].finished_at is None


@pytest.mark.parametrize("open_log", ["sqlite", POSTGRES], indirect=True)
def test_replicas_racing_for_a_slot_start_it_once(open_log: OpenRunLog) -> None:
    logs = [open_log() for _ in range(4)]
    barrier = threading.Barrier(len(logs))
    won: list[int | None] = [None] * len(logs)

    def claim(n: int) -> None:
        barrier.wait()
        won[n] = logs[n].start("expire", f"replica-{n}", T0, slot=T0)

    threads = [threading.Thread(target=claim, args=(n,)) for n in range(len(logs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(run is not None for run in won) == 1
    assert len(logs[0].runs("expire")) == 1
