"""Admin operations: promotion, the lifecycle jobs and rebuilds. Admin keys only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schemas import wire
from service.application.auth import Principal
from service.application.rebuild import Rebuilder, RebuildStatus
from service.application.schedule import Schedule
from service.domain.entries import entry_key
from service.domain.memory import Lifecycle
from service.domain.model import JobRun
from service.errors import InvalidInput

RUNS_COUNTED = 1000
"""Most runs of a job counted in its ``runs``."""
RECENT_RUNS = 5
"""Runs of a job listed with it, newest first."""


@dataclass(frozen=True)
class JobView:
    name: str
    schedule: str
    next_run: float | None
    last_started: float | None
    last_finished: float | None
    last_result: dict[str, Any] | None
    last_error: str | None
    runs: int
    """Runs the run log holds, on every replica (counted up to ``RUNS_COUNTED``)."""
    last_replica: str | None
    per_replica: bool
    """Whether each replica runs it (on its own index) rather than one for all."""
    recent: list[JobRun]


@dataclass(frozen=True)
class Promoted:
    namespace: str
    ids: list[str]


class AdminUseCases:
    def __init__(self, lifecycle: Lifecycle, scheduler: Schedule, rebuilder: Rebuilder) -> None:
        self.lifecycle = lifecycle
        self.scheduler = scheduler
        self.rebuilder = rebuilder

    def promote(self, principal: Principal, request: wire.PromoteRequest) -> Promoted:
        """Make tier C entries lasting tier A entries, keeping their vectors."""
        principal.require_admin()
        ns = principal.namespace(request.namespace)
        try:
            self.lifecycle.promote([entry_key(ns, i) for i in request.ids], principal.name)
        except InvalidInput as exc:
            raise exc.named("entries", "ids") from None
        return Promoted(ns, list(dict.fromkeys(request.ids)))

    def list_jobs(self, principal: Principal) -> list[JobView]:
        principal.require_admin()
        return [self._view(job.name) for job in self.scheduler.records()]

    def run_job(self, principal: Principal, name: str) -> JobView:
        """Run a job now and return its record once it has finished."""
        principal.require_admin()
        return self._view(self.scheduler.run(name).job)

    def start_rebuild(self, principal: Principal) -> RebuildStatus:
        """Rebuild Chroma and Tantivy from the ledger in the background."""
        principal.require_admin()
        self.rebuilder.start()
        return self.rebuilder.status

    def rebuild_status(self, principal: Principal) -> RebuildStatus:
        principal.require_admin()
        return self.rebuilder.status

    def _view(self, name: str) -> JobView:
        job = next(j for j in self.scheduler.records() if j.name == name)
        next_run = self.scheduler.next_run(name)
        runs = self.scheduler.history(name, RUNS_COUNTED)
        last = runs[0] if runs else None
        return JobView(
            name=job.name,
            schedule=job.cron,
            next_run=next_run.timestamp() if next_run else None,
            last_started=last.started_at if last else None,
            last_finished=last.finished_at if last else None,
            last_result=dict(last.result) if last and last.result is not None else None,
            last_error=last.error if last else None,
            runs=len(runs),
            last_replica=last.replica if last else None,
            per_replica=job.per_replica,
            recent=runs[:RECENT_RUNS],
        )
