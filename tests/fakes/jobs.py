"""A job log and a coordination kept in memory, for the scheduler on fakes."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from service.domain.models import JobRun


class FakeJobLog:
    """Runs in a list; a second start of a job for the same slot is refused, as the shared
    log refuses it to every replica."""

    def __init__(self) -> None:
        self.all: list[JobRun] = []
        self._lock = threading.Lock()

    def start(self, job: str, replica: str, at: float, slot: float | None = None) -> int | None:
        with self._lock:
            if slot is not None and any(r.job == job and r.slot == slot for r in self.all):
                return None
            run = JobRun(len(self.all) + 1, job, replica, at, slot=slot)
            self.all.append(run)
            return run.id

    def finish(
        self, run: int, at: float, result: Mapping[str, Any] | None, error: str | None
    ) -> None:
        with self._lock:
            done = dataclasses.replace(
                self.all[run - 1], finished_at=at, result=result, error=error
            )
            self.all[run - 1] = done

    def last(self) -> dict[str, JobRun]:
        return {r.job: r for r in self.all}

    def runs(self, job: str, limit: int = 20) -> list[JobRun]:
        return [r for r in reversed(self.all) if r.job == job][:limit]


class FakeCoordination:
    """Leads while ``leading`` says so; a job's lock is free unless a block holds it or the
    test says another replica does (``held_elsewhere``)."""

    def __init__(self, leading: bool = True) -> None:
        self.leading = leading
        self.held_elsewhere: set[str] = set()
        self._held: set[str] = set()
        self._lock = threading.Lock()

    def lead(self) -> bool:
        return self.leading

    @contextmanager
    def job_lock(self, job: str) -> Iterator[bool]:
        with self._lock:
            free = job not in self._held and job not in self.held_elsewhere
            if free:
                self._held.add(job)
        try:
            yield free
        finally:
            if free:
                with self._lock:
                    self._held.discard(job)

    def close(self) -> None:
        pass
