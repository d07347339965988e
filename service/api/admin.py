"""Admin operations: promotion, jobs and rebuilds. Admin keys only."""

from __future__ import annotations

from litestar import Controller, get, post
from litestar.params import FromPath, JSONBody

from schemas import wire
from service.api.convert import format_time
from service.api.deps import PrincipalDep, ResourcesDep
from service.domain.models import entry_key
from service.jobs.scheduler import JobRecord
from service.resources import Resources


class AdminController(Controller):
    path = "/v1/admin"
    tags = ["admin"]

    @post("/promote", status_code=200, sync_to_thread=True)
    def promote(
        self,
        data: JSONBody[wire.PromoteRequest],
        resources: ResourcesDep,
        principal: PrincipalDep,
    ) -> wire.PromoteResponse:
        """Make tier C entries lasting tier A entries, keeping their vectors."""
        principal.require_admin()
        ns = principal.namespace(data.namespace)
        ids = list(dict.fromkeys(data.ids))
        resources.memory.promote([entry_key(ns, i) for i in data.ids], principal.name)
        return wire.PromoteResponse(ns, ids)

    @get("/jobs", sync_to_thread=False)
    def jobs(self, resources: ResourcesDep, principal: PrincipalDep) -> wire.JobsResponse:
        principal.require_admin()
        return wire.JobsResponse([_job_out(resources, j) for j in resources.jobs.records()])

    @post("/jobs/{name:str}/run", status_code=200, sync_to_thread=True)
    def run_job(
        self, name: FromPath[str], resources: ResourcesDep, principal: PrincipalDep
    ) -> wire.JobOut:
        """Run a job now and return its record once it has finished."""
        principal.require_admin()
        return _job_out(resources, resources.jobs.run(name))

    @post("/rebuild", status_code=202, sync_to_thread=False)
    def start_rebuild(self, resources: ResourcesDep, principal: PrincipalDep) -> wire.RebuildOut:
        """Rebuild Chroma and Tantivy from the ledger in the background."""
        principal.require_admin()
        resources.rebuilder.start()
        return _rebuild_out(resources)

    @get("/rebuild", sync_to_thread=False)
    def rebuild_status(self, resources: ResourcesDep, principal: PrincipalDep) -> wire.RebuildOut:
        principal.require_admin()
        return _rebuild_out(resources)


def _job_out(resources: Resources, job: JobRecord) -> wire.JobOut:
    next_run = resources.jobs.next_run(job.name)
    return wire.JobOut(
        name=job.name,
        schedule=job.cron,
        next_run=format_time(next_run.timestamp()) if next_run else None,
        last_started=format_time(job.last_started),
        last_finished=format_time(job.last_finished),
        last_result=job.last_result,
        last_error=job.last_error,
        runs=job.runs,
    )


def _rebuild_out(resources: Resources) -> wire.RebuildOut:
    s = resources.rebuilder.status
    return wire.RebuildOut(
        state=s.state,  # type: ignore[arg-type]
        done=s.done,
        total=s.total,
        started_at=format_time(s.started_at),
        finished_at=format_time(s.finished_at),
        error=s.error,
    )
