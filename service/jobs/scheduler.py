"""The lifecycle jobs on a schedule (APScheduler), and by hand, with their last results."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger

from service.errors import ConfigError, Conflict, NotFound

log = logging.getLogger(__name__)


@dataclass
class JobRecord:
    name: str
    cron: str
    run: Callable[[], dict[str, Any]]
    last_started: float | None = None
    last_finished: float | None = None
    last_result: dict[str, Any] | None = None
    last_error: str | None = None
    runs: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class Jobs:
    """Named jobs: run on their cron schedules while started, or at once with ``run``."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._jobs: dict[str, JobRecord] = {}
        self._scheduler: BackgroundScheduler | None = None

    def add(self, name: str, cron: str, run: Callable[[], dict[str, Any]]) -> None:
        try:
            CronTrigger.from_crontab(cron, timezone=UTC)
        except ValueError as exc:
            raise ConfigError(f"schedule of {name}: {cron!r} is not a crontab line") from exc
        self._jobs[name] = JobRecord(name, cron, run)

    def start(self) -> None:
        scheduler = BackgroundScheduler(timezone=UTC)
        for job in self._jobs.values():
            scheduler.add_job(
                self._scheduled,
                CronTrigger.from_crontab(job.cron, timezone=UTC),
                args=[job.name],
                id=job.name,
                max_instances=1,
                coalesce=True,
            )
        scheduler.start()
        self._scheduler = scheduler

    def shutdown(self) -> None:
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=True)
            self._scheduler = None

    def run(self, name: str) -> JobRecord:
        """Run a job now, in the caller's thread; 409 when it is already running."""
        job = self._jobs.get(name)
        if job is None:
            raise NotFound(f"no job {name!r}; jobs are {', '.join(sorted(self._jobs))}")
        if not job.lock.acquire(blocking=False):
            raise Conflict(f"job {name!r} is already running")
        try:
            job.last_started = self.clock()
            job.runs += 1
            try:
                job.last_result, job.last_error = job.run(), None
                log.info("job %s: %s", name, job.last_result)
            except Exception as exc:  # a failed run is recorded and reported, not fatal
                job.last_result, job.last_error = None, f"{type(exc).__name__}: {exc}"
                log.exception("job %s failed", name)
            job.last_finished = self.clock()
        finally:
            job.lock.release()
        return job

    def _scheduled(self, name: str) -> None:
        try:
            self.run(name)
        except Conflict:
            log.info("job %s still running; this turn skipped", name)

    def records(self) -> list[JobRecord]:
        return list(self._jobs.values())

    def next_run(self, name: str) -> datetime | None:
        if self._scheduler is None:
            return None
        job = self._scheduler.get_job(name)
        return job.next_run_time if job is not None else None
