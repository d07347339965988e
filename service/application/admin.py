"""Admin operations: promotion, the lifecycle jobs and rebuilds. Admin keys only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schemas import wire
from service.auth import Principal
from service.domain.memory import Memory
from service.domain.models import entry_key
from service.jobs.rebuild import Rebuilder, RebuildStatus
from service.jobs.scheduler import Jobs


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


@dataclass(frozen=True)
class Promoted:
    namespace: str
    ids: list[str]


class AdminUseCases:
    def __init__(self, memory: Memory, jobs: Jobs, rebuilder: Rebuilder) -> None:
        self.memory = memory
        self.jobs = jobs
        self.rebuilder = rebuilder

    def promote(self, principal: Principal, request: wire.PromoteRequest) -> Promoted:
        """Make tier C entries lasting tier A entries, keeping their vectors."""
        principal.require_admin()
        ns = principal.namespace(request.namespace)
        self.memory.promote([entry_key(ns, i) for i in request.ids], principal.name)
        return Promoted(ns, list(dict.fromkeys(request.ids)))

    def list_jobs(self, principal: Principal) -> list[JobView]:
        principal.require_admin()
        return [self._view(job.name) for job in self.jobs.records()]

    def run_job(self, principal: Principal, name: str) -> JobView:
        """Run a job now and return its record once it has finished."""
        principal.require_admin()
        return self._view(self.jobs.run(name).name)

    def start_rebuild(self, principal: Principal) -> RebuildStatus:
        """Rebuild Chroma and Tantivy from the ledger in the background."""
        principal.require_admin()
        self.rebuilder.start()
        return self.rebuilder.status

    def rebuild_status(self, principal: Principal) -> RebuildStatus:
        principal.require_admin()
        return self.rebuilder.status

    def _view(self, name: str) -> JobView:
        job = next(j for j in self.jobs.records() if j.name == name)
        next_run = self.jobs.next_run(name)
        return JobView(
            name=job.name,
            schedule=job.cron,
            next_run=next_run.timestamp() if next_run else None,
            last_started=job.last_started,
            last_finished=job.last_finished,
            last_result=job.last_result,
            last_error=job.last_error,
            runs=job.runs,
        )
