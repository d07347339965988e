"""The lifecycle jobs on their cron schedules, and by hand, once per cluster.

Every replica runs the schedule, but a scheduled turn runs its job only on the replica that
leads (``Coordination.lead``), only while no other run of the job holds its lock, and only
if no replica has claimed that turn already (``RunLog.start`` with the turn's time as its
slot): a turn runs once however many replicas fire it, whatever their clocks' drift and
whoever leads when. A run by hand takes the same lock on any replica. Runs are recorded in
the shared run log, so every replica reports the same history.

A job marked ``per_replica`` (work on the replica's own files, such as merging its keyword
index) runs on every replica at each turn instead, under a lock of that replica alone.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from apscheduler.triggers.cron import CronTrigger

from service.domain.model import JobRun
from service.domain.ports import Coordination, RunLog
from service.errors import ConfigError, Conflict, NotFound
from service.lib.loops import Loop

log = logging.getLogger(__name__)

LEAD_EVERY = 10.0
"""Seconds between two attempts of a replica to lead while it has nothing to run."""


@dataclass
class JobRecord:
    name: str
    cron: str
    run: Callable[[], dict[str, Any]]
    trigger: CronTrigger
    per_replica: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held by the run of this job in this process."""


@dataclass(eq=False)
class Scheduler:
    """Named jobs: run on their cron schedules while started, or at once with ``run``."""

    runs: RunLog
    coordination: Coordination
    replica: str
    clock: Callable[[], float] = time.time
    on_run: Callable[[JobRun], None] | None = None
    """Told of every run this replica finished."""
    leading: bool = field(default=False, init=False)
    """Whether this replica led when it last tried (it tries only while started)."""
    _jobs: dict[str, JobRecord] = field(default_factory=dict, init=False, repr=False)
    _due: dict[str, float] = field(default_factory=dict, init=False, repr=False)
    _loop: Loop = field(default_factory=lambda: Loop("scheduler"), init=False, repr=False)
    _turns: list[threading.Thread] = field(default_factory=list, init=False, repr=False)

    def add(
        self, name: str, cron: str, run: Callable[[], dict[str, Any]], *, per_replica: bool = False
    ) -> None:
        try:
            trigger = CronTrigger.from_crontab(cron, timezone=UTC)
        except ValueError as exc:
            raise ConfigError(f"schedule of {name}: {cron!r} is not a crontab line") from exc
        self._jobs[name] = JobRecord(name, cron, run, trigger, per_replica)

    def start(self) -> None:
        """Run the schedule on a thread of its own, after a first attempt to lead."""
        self._lead()
        now = self.clock()
        self._due = {name: self._next(job, now) for name, job in self._jobs.items()}
        self._loop.start(self._schedule)

    def shutdown(self) -> None:
        """Stop the schedule and wait for the turns running."""
        self._loop.stop()
        for turn in self._turns:
            turn.join()
        self._turns = []
        self._due = {}

    def run(self, name: str) -> JobRun:
        """Run a job now, in the caller's thread; 409 when a run of it holds its lock on
        any replica."""
        job = self._jobs.get(name)
        if job is None:
            raise NotFound(f"no job {name!r}; jobs are {', '.join(sorted(self._jobs))}")
        with self._held(job) as held:
            if not held:
                raise Conflict(f"job {name!r} is already running")
            started = self.clock()
            run = self.runs.start(name, self.replica, started)
            if run is None:  # never for a run by hand: it claims no slot
                raise Conflict(f"job {name!r} is already running")
            return self._execute(job, run, started, None)

    def fire(self, name: str, slot: float) -> JobRun | None:
        """The scheduled turn of ``slot`` (its time): the run, or None when this replica
        does not lead, the job is running or another replica ran this turn."""
        job = self._jobs[name]
        if not job.per_replica and not self._lead():
            return None
        with self._held(job) as held:
            if not held:
                log.info("job %s still running; the turn of %s skipped", name, _iso(slot))
                return None
            claimed = None if job.per_replica else slot
            started = self.clock()
            run = self.runs.start(name, self.replica, started, slot=claimed)
            if run is None:
                log.info("job %s: the turn of %s ran on another replica", name, _iso(slot))
                return None
            return self._execute(job, run, started, claimed)

    def _lead(self) -> bool:
        try:
            self.leading = self.coordination.lead()
        except Exception:  # the database may be away: no jobs until it is back
            log.exception("could not tell whether this replica leads")
            self.leading = False
        return self.leading

    @contextmanager
    def _held(self, job: JobRecord) -> Iterator[bool]:
        """This process's lock of the job and, unless it runs per replica, the cluster's."""
        if not job.lock.acquire(blocking=False):
            yield False
            return
        try:
            if job.per_replica:
                yield True
            else:
                with self.coordination.job_lock(job.name) as held:
                    yield held
        finally:
            job.lock.release()

    def _execute(self, job: JobRecord, run: int, started: float, slot: float | None) -> JobRun:
        result: dict[str, Any] | None = None
        error: str | None = None
        try:
            result = job.run()
            log.info("job %s: %s", job.name, result)
        except Exception as exc:  # a failed run is recorded and reported, not fatal
            error = f"{type(exc).__name__}: {exc}"
            log.exception("job %s failed", job.name)
        finished = self.clock()
        done = JobRun(run, job.name, self.replica, started, finished, result, error, slot)
        if self.on_run is not None:
            self.on_run(done)
        self.runs.finish(run, finished, result, error)
        return done

    def _schedule(self, stopping: threading.Event) -> None:
        tried = self.clock()
        while True:
            now = self.clock()
            for name, slot in list(self._due.items()):
                if slot <= now:
                    self._due[name] = self._next(self._jobs[name], now + 1)
                    self._turn(name, slot)
            if now - tried >= LEAD_EVERY:  # so /health says who leads between turns too
                tried = now
                self._lead()
            soonest = min(self._due.values(), default=float("inf"))
            if stopping.wait(min(max(soonest - self.clock(), 0.0), LEAD_EVERY)):
                return

    def _turn(self, name: str, slot: float) -> None:
        self._turns = [t for t in self._turns if t.is_alive()]
        turn = threading.Thread(
            target=self._fire_logged, args=(name, slot), name=f"job-{name}", daemon=True
        )
        self._turns.append(turn)
        turn.start()

    def _fire_logged(self, name: str, slot: float) -> None:
        try:
            self.fire(name, slot)
        except Exception:  # the run log may be away: this turn is lost, the next one tries
            log.exception("the turn of %s of job %s could not run", _iso(slot), name)

    def _next(self, job: JobRecord, after: float) -> float:
        """The first turn of ``job`` at or after ``after``."""
        fire = job.trigger.get_next_fire_time(None, datetime.fromtimestamp(after, UTC))
        return fire.timestamp() if fire is not None else float("inf")

    def records(self) -> list[JobRecord]:
        return list(self._jobs.values())

    def next_run(self, name: str) -> datetime | None:
        """When the next turn of ``name`` is due, while the schedule runs."""
        due = self._due.get(name)
        if due is None or due == float("inf"):
            return None
        return datetime.fromtimestamp(due, UTC)

    def last(self) -> dict[str, JobRun]:
        """The latest run of each job, on any replica."""
        return self.runs.last()

    def history(self, name: str, limit: int) -> list[JobRun]:
        """The runs of ``name``, newest first."""
        return self.runs.runs(name, limit)


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat()
