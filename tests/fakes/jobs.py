"""An in-memory run log and coordination."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from service.domain.model import JobRun


class FakeRunLog:
    """Runs by id, numbered from 1; a (job, slot) started once."""

    def __init__(self) -> None:
        self.runs_by_id: dict[int, JobRun] = {}

    def start(self, job: str, replica: str, at: float, slot: float | None = None) -> int | None:
        if slot is not None and any(
            r.job == job and r.slot == slot for r in self.runs_by_id.values()
        ):
            return None
        run = len(self.runs_by_id) + 1
        self.runs_by_id[run] = JobRun(run, job, replica, at, slot=slot)
        return run

    def finish(
        self, run: int, at: float, result: Mapping[str, Any] | None, error: str | None
    ) -> None:
        found = self.runs_by_id.get(run)
        if found is not None:
            kept = None if result is None else dict(result)
            self.runs_by_id[run] = replace(found, finished_at=at, result=kept, error=error)

    def last(self) -> dict[str, JobRun]:
        latest: dict[str, JobRun] = {}
        for run in sorted(self.runs_by_id.values(), key=lambda r: (r.started_at, r.id)):
            latest[run.job] = run
        return dict(sorted(latest.items()))

    def runs(self, job: str, limit: int = 20) -> list[JobRun]:
        mine = [r for r in self.runs_by_id.values() if r.job == job]
        return sorted(mine, key=lambda r: (r.started_at, r.id), reverse=True)[:limit]


class FakeCoordination:
    """Leads while ``leading`` (set by the test); job locks held in a set."""

    def __init__(self, leading: bool = True) -> None:
        self.leading = leading
        self.held: set[str] = set()
        self.closed = False

    def lead(self) -> bool:
        return self.leading and not self.closed

    @contextmanager
    def job_lock(self, job: str) -> Iterator[bool]:
        if job in self.held:
            yield False
            return
        self.held.add(job)
        try:
            yield True
        finally:
            self.held.discard(job)

    def close(self) -> None:
        self.closed = True
