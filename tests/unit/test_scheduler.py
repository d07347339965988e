"""Named jobs by hand and on schedule, once per cluster: results, errors, conflicts, turns."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from service.domain.model import JobRun
from service.errors import ConfigError, Conflict, NotFound
from service.jobs.scheduler import Scheduler
from tests.fakes import FakeClock, FakeCoordination, FakeRunLog

NEVER_SOON = "0 0 1 1 *"
"""Midnight on New Year's Day: a schedule that will not fire while a test runs."""
SLOT = datetime(2027, 1, 15, 9, 0, tzinfo=UTC).timestamp()
"""A turn of an hourly job."""


@dataclasses.dataclass
class Ticker:
    """A clock that moves one second each time it is read."""

    now: float = 1000.0

    def __call__(self) -> float:
        self.now += 1
        return self.now


def noting(notes: list[str], note: str) -> Callable[[], dict[str, Any]]:
    """A job that notes ``note`` when it runs."""

    def run() -> dict[str, Any]:
        notes.append(note)
        return {"by": note}

    return run


def recorded(log: FakeRunLog) -> list[JobRun]:
    return list(log.runs_by_id.values())


@pytest.fixture
def log() -> FakeRunLog:
    return FakeRunLog()


@pytest.fixture
def coordination() -> FakeCoordination:
    return FakeCoordination()


@pytest.fixture
def scheduler(log: FakeRunLog, coordination: FakeCoordination) -> Scheduler:
    return Scheduler(log, coordination, "api-1", clock=Ticker())


def test_run_records_the_result_times_and_replica(scheduler: Scheduler, log: FakeRunLog) -> None:
    scheduler.add("count", NEVER_SOON, lambda: {"archived": 3})
    run = scheduler.run("count")
    assert (run.result, run.error, run.replica, run.slot) == ({"archived": 3}, None, "api-1", None)
    assert (run.started_at, run.finished_at) == (1001.0, 1002.0)
    assert recorded(log) == [run]
    assert scheduler.run("count").started_at == 1003.0
    assert [r.started_at for r in scheduler.history("count", 5)] == [1003.0, 1001.0]


def test_run_records_an_error_and_the_next_success_clears_it(scheduler: Scheduler) -> None:
    outcomes: list[Exception | dict[str, Any]] = [ValueError("ledger is locked"), {"ok": 1}]

    def flaky() -> dict[str, Any]:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    scheduler.add("flaky", NEVER_SOON, flaky)
    run = scheduler.run("flaky")  # a failed run is recorded, not raised
    assert (run.error, run.result) == ("ValueError: ledger is locked", None)
    assert run.finished_at is not None
    assert scheduler.last()["flaky"] == run
    run = scheduler.run("flaky")
    assert (run.result, run.error) == ({"ok": 1}, None)
    assert scheduler.last()["flaky"] == run


def test_unknown_job_is_not_found_and_names_the_jobs(scheduler: Scheduler) -> None:
    scheduler.add("b", NEVER_SOON, dict)
    scheduler.add("a", NEVER_SOON, dict)
    with pytest.raises(NotFound, match=r"'nope'.*a, b"):
        scheduler.run("nope")


def test_running_job_cannot_be_started_again(scheduler: Scheduler) -> None:
    seen: list[Exception] = []

    def reentrant() -> dict[str, Any]:
        # A second request while this run holds the job: refused, not queued.
        with pytest.raises(Conflict, match="already running") as raised:
            scheduler.run("slow")
        seen.append(raised.value)
        return {"done": True}

    scheduler.add("slow", NEVER_SOON, reentrant)
    assert scheduler.run("slow").result == {"done": True}
    assert len(seen) == 1
    assert len(scheduler.history("slow", 5)) == 1
    assert scheduler.run("slow").result == {"done": True}  # free again afterwards


def test_a_job_running_on_another_replica_cannot_be_run_here(
    scheduler: Scheduler, coordination: FakeCoordination, log: FakeRunLog
) -> None:
    scheduler.add("expire", NEVER_SOON, dict)
    coordination.held.add("expire")
    with pytest.raises(Conflict, match="'expire' is already running"):
        scheduler.run("expire")
    assert scheduler.fire("expire", SLOT) is None
    assert recorded(log) == []
    coordination.held.clear()
    assert scheduler.run("expire").error is None


def test_other_jobs_may_run_while_one_runs(scheduler: Scheduler) -> None:
    scheduler.add("inner", NEVER_SOON, lambda: {"inner": 1})
    scheduler.add("outer", NEVER_SOON, lambda: {"inner": scheduler.run("inner").result})
    assert scheduler.run("outer").result == {"inner": {"inner": 1}}


def test_scheduled_turn_of_a_running_job_is_skipped(scheduler: Scheduler) -> None:
    turns: list[JobRun | None] = []

    def job() -> dict[str, Any]:
        turns.append(scheduler.fire("job", SLOT))  # the turn comes while this run holds the job
        return {}

    scheduler.add("job", NEVER_SOON, job)
    scheduler.run("job")
    assert turns == [None]
    assert len(scheduler.history("job", 5)) == 1


def test_failing_job_releases_it(scheduler: Scheduler) -> None:
    def boom() -> dict[str, Any]:
        raise RuntimeError("boom")

    scheduler.add("boom", NEVER_SOON, boom)
    scheduler.run("boom")
    assert scheduler.run("boom").error == "RuntimeError: boom"


def test_a_turn_runs_only_on_the_replica_that_leads(
    scheduler: Scheduler, coordination: FakeCoordination, log: FakeRunLog
) -> None:
    scheduler.add("expire", NEVER_SOON, lambda: {"archived": 0})
    coordination.leading = False
    assert scheduler.fire("expire", SLOT) is None
    assert (recorded(log), scheduler.leading) == ([], False)
    coordination.leading = True
    run = scheduler.fire("expire", SLOT)
    assert run is not None and scheduler.leading
    assert (run.slot, run.result) == (SLOT, {"archived": 0})


def test_a_turn_runs_once_however_many_replicas_fire_it(log: FakeRunLog) -> None:
    """Two replicas that both believe they lead (one taking over as the other's lease
    ends) share the log: the first to claim the turn runs it."""
    ran: list[str] = []
    replicas = [Scheduler(log, FakeCoordination(), name, clock=Ticker()) for name in ("a", "b")]
    for replica in replicas:
        replica.add("expire", NEVER_SOON, noting(ran, replica.replica))
    assert replicas[0].fire("expire", SLOT) is not None
    assert replicas[1].fire("expire", SLOT) is None
    assert replicas[1].fire("expire", SLOT + 3600) is not None
    assert ran == ["a", "b"]
    assert replicas[0].last()["expire"].replica == "b"  # every replica sees every run


def test_a_job_per_replica_runs_on_every_replica_at_each_turn(log: FakeRunLog) -> None:
    ran: list[str] = []
    for name in ("a", "b"):
        replica = Scheduler(log, FakeCoordination(leading=False), name, clock=Ticker())
        replica.add("optimize", NEVER_SOON, noting(ran, name), per_replica=True)
        run = replica.fire("optimize", SLOT)
        assert run is not None and run.slot is None
    assert ran == ["a", "b"]


@pytest.mark.parametrize("cron", ["", "every hour", "61 * * * *", "* * * *", "0 25 * * *"])
def test_bad_schedule_is_a_config_error_naming_the_job(scheduler: Scheduler, cron: str) -> None:
    with pytest.raises(ConfigError, match="expire_c_tier"):
        scheduler.add("expire_c_tier", cron, dict)
    assert scheduler.records() == []


def test_records_list_every_job_with_its_schedule(scheduler: Scheduler) -> None:
    scheduler.add("a", "0 * * * *", dict)
    scheduler.add("b", "*/15 * * * *", dict, per_replica=True)
    assert [(r.name, r.cron, r.per_replica) for r in scheduler.records()] == [
        ("a", "0 * * * *", False),
        ("b", "*/15 * * * *", True),
    ]


def test_next_run_is_none_unless_started(scheduler: Scheduler) -> None:
    scheduler.add("a", NEVER_SOON, dict)
    assert scheduler.next_run("a") is None
    scheduler.shutdown()  # harmless when never started


def test_started_jobs_have_their_next_run_on_schedule(
    log: FakeRunLog, coordination: FakeCoordination
) -> None:
    scheduler = Scheduler(log, coordination, "api-1")
    scheduler.add("yearly", NEVER_SOON, dict)
    scheduler.start()
    try:
        when = scheduler.next_run("yearly")
        assert when is not None
        assert (when.month, when.day, when.hour, when.minute) == (1, 1, 0, 0)
        assert scheduler.next_run("unknown") is None
    finally:
        scheduler.shutdown()
    assert scheduler.next_run("yearly") is None
    assert recorded(log) == []


def test_the_schedule_fires_each_turn_with_its_time_as_the_slot(
    log: FakeRunLog, coordination: FakeCoordination
) -> None:
    clock = FakeClock(SLOT - 0.5)
    ran = threading.Event()

    def hourly() -> dict[str, Any]:
        ran.set()
        return {}

    scheduler = Scheduler(log, coordination, "api-1", clock=clock)
    scheduler.add("hourly", "0 * * * *", hourly)
    scheduler.start()
    try:
        assert scheduler.leading  # it tried to lead as it started
        clock.advance(1)
        assert ran.wait(5)
        next_run = scheduler.next_run("hourly")
        assert next_run is not None and next_run.timestamp() == SLOT + 3600
    finally:
        scheduler.shutdown()
    assert [(r.job, r.slot, r.replica) for r in recorded(log)] == [("hourly", SLOT, "api-1")]
    assert recorded(log)[0].finished_at is not None


def test_a_failing_job_log_loses_the_turn_not_the_schedule(
    coordination: FakeCoordination,
) -> None:
    class Away(FakeRunLog):
        def start(self, job: str, replica: str, at: float, slot: float | None = None) -> int:
            raise ConnectionError("database away")

    clock = FakeClock(SLOT - 0.5)
    scheduler = Scheduler(Away(), coordination, "api-1", clock=clock)
    scheduler.add("hourly", "0 * * * *", dict)
    scheduler.start()
    try:
        clock.advance(1)
        deadline = time.monotonic() + 5
        while scheduler.next_run("hourly") != datetime.fromtimestamp(SLOT + 3600, UTC):
            assert time.monotonic() < deadline
            time.sleep(0.01)
    finally:
        scheduler.shutdown()
