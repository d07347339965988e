"""Named jobs run by hand: results, errors, conflicts; the schedule only where stated."""

from __future__ import annotations

import dataclasses
from datetime import UTC
from typing import Any

import pytest

from service.errors import ConfigError, Conflict, NotFound
from service.jobs.scheduler import Jobs

NEVER_SOON = "0 0 1 1 *"
"""Midnight on New Year's Day: a schedule that will not fire while a test runs."""


@dataclasses.dataclass
class Ticker:
    """A clock that moves one second each time it is read."""

    now: float = 1000.0

    def __call__(self) -> float:
        self.now += 1
        return self.now


@pytest.fixture
def jobs() -> Jobs:
    return Jobs(clock=Ticker())


def test_run_records_the_result_and_times(jobs: Jobs) -> None:
    jobs.add("count", NEVER_SOON, lambda: {"archived": 3})
    record = jobs.run("count")
    assert record.last_result == {"archived": 3}
    assert record.last_error is None
    assert record.runs == 1
    assert (record.last_started, record.last_finished) == (1001.0, 1002.0)
    assert jobs.run("count").runs == 2
    assert record.last_started == 1003.0


def test_run_records_an_error_and_the_next_success_clears_it(jobs: Jobs) -> None:
    outcomes: list[Exception | dict[str, Any]] = [ValueError("ledger is locked"), {"ok": 1}]

    def flaky() -> dict[str, Any]:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    jobs.add("flaky", NEVER_SOON, flaky)
    record = jobs.run("flaky")  # a failed run is recorded, not raised
    assert record.last_error == "ValueError: ledger is locked"
    assert record.last_result is None
    assert record.runs == 1
    assert record.last_finished is not None
    record = jobs.run("flaky")
    assert (record.last_result, record.last_error, record.runs) == ({"ok": 1}, None, 2)


def test_unknown_job_is_not_found_and_names_the_jobs(jobs: Jobs) -> None:
    jobs.add("b", NEVER_SOON, dict)
    jobs.add("a", NEVER_SOON, dict)
    with pytest.raises(NotFound, match=r"'nope'.*a, b"):
        jobs.run("nope")


def test_running_job_cannot_be_started_again(jobs: Jobs) -> None:
    seen: list[Exception] = []

    def reentrant() -> dict[str, Any]:
        # A second request while this run holds the job: refused, not queued.
        with pytest.raises(Conflict, match="already running") as raised:
            jobs.run("slow")
        seen.append(raised.value)
        return {"done": True}

    jobs.add("slow", NEVER_SOON, reentrant)
    record = jobs.run("slow")
    assert len(seen) == 1
    assert (record.last_result, record.last_error, record.runs) == ({"done": True}, None, 1)
    # The job is free again afterwards.
    assert jobs.run("slow").runs == 2


def test_other_jobs_may_run_while_one_runs(jobs: Jobs) -> None:
    jobs.add("inner", NEVER_SOON, lambda: {"inner": 1})
    jobs.add("outer", NEVER_SOON, lambda: {"inner_runs": jobs.run("inner").runs})
    assert jobs.run("outer").last_result == {"inner_runs": 1}


def test_scheduled_turn_of_a_running_job_is_skipped(jobs: Jobs) -> None:
    def job() -> dict[str, Any]:
        jobs._scheduled("job")  # what the scheduler does when the cron fires meanwhile
        return {}

    jobs.add("job", NEVER_SOON, job)
    assert jobs.run("job").runs == 1


def test_failing_job_releases_it(jobs: Jobs) -> None:
    def boom() -> dict[str, Any]:
        raise RuntimeError("boom")

    jobs.add("boom", NEVER_SOON, boom)
    jobs.run("boom")
    assert jobs.run("boom").runs == 2


@pytest.mark.parametrize("cron", ["", "every hour", "61 * * * *", "* * * *", "0 25 * * *"])
def test_bad_schedule_is_a_config_error_naming_the_job(jobs: Jobs, cron: str) -> None:
    with pytest.raises(ConfigError, match="expire_c_tier"):
        jobs.add("expire_c_tier", cron, dict)
    assert jobs.records() == []


def test_records_list_every_job_with_its_schedule(jobs: Jobs) -> None:
    jobs.add("a", "0 * * * *", dict)
    jobs.add("b", "*/15 * * * *", dict)
    assert [(r.name, r.cron, r.runs, r.last_result) for r in jobs.records()] == [
        ("a", "0 * * * *", 0, None),
        ("b", "*/15 * * * *", 0, None),
    ]


def test_next_run_is_none_unless_started(jobs: Jobs) -> None:
    jobs.add("a", NEVER_SOON, dict)
    assert jobs.next_run("a") is None
    jobs.shutdown()  # harmless when never started


def test_started_jobs_have_their_next_run_on_schedule(jobs: Jobs) -> None:
    jobs.add("yearly", NEVER_SOON, dict)
    jobs.start()
    try:
        when = jobs.next_run("yearly")
        assert when is not None
        when = when.astimezone(UTC)
        assert (when.month, when.day, when.hour, when.minute) == (1, 1, 0, 0)
        assert jobs.next_run("unknown") is None
    finally:
        jobs.shutdown()
    assert jobs.next_run("yearly") is None
    assert jobs.records()[0].runs == 0
