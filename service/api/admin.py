"""Admin operations: promotion, jobs and rebuilds. Admin keys only."""

from __future__ import annotations

from litestar import Controller, get, post
from litestar.params import FromPath, JSONBody

from schemas import wire
from service.api.namespaces import erasure_out
from service.edge.deps import CallerDep
from service.edge.openapi import problems
from service.present.admin import job_out, promoted_out, quarantine_out, rebuild_out


class AdminController(Controller):
    path = "/v1/admin"
    tags = ["admin"]

    @post("/promote", status_code=200)
    async def promote(
        self, data: JSONBody[wire.PromoteRequest], caller: CallerDep
    ) -> wire.PromoteResponse:
        """Make tier C entries lasting tier A entries, keeping their vectors."""
        return promoted_out(await caller.write(caller.services.admin.promote, data))

    @get("/jobs", sync_to_thread=False)
    def jobs(self, caller: CallerDep) -> wire.JobsResponse:
        return wire.JobsResponse(
            [job_out(j) for j in caller.services.admin.list_jobs(caller.principal)]
        )

    @post(
        "/jobs/{name:str}/run",
        status_code=200,
        responses=problems(404, 409),
    )
    async def run_job(self, name: FromPath[str], caller: CallerDep) -> wire.JobOut:
        """Run a job now and return its record once it has finished."""
        return job_out(await caller.write(caller.services.admin.run_job, name))

    @post("/rebuild", status_code=202, sync_to_thread=False, responses=problems(409))
    def start_rebuild(self, caller: CallerDep) -> wire.RebuildOut:
        """Rebuild Chroma and Tantivy from the ledger in the background."""
        return rebuild_out(caller.services.admin.start_rebuild(caller.principal))

    @get("/quarantine", sync_to_thread=True)
    def quarantine(self, caller: CallerDep) -> wire.QuarantineResponse:
        """Entries set aside because they could not be indexed, with the reason."""
        return quarantine_out(caller.services.status.quarantined(caller.principal))

    @get("/erasures", sync_to_thread=True)
    def erasures(self, caller: CallerDep) -> wire.ErasuresResponse:
        """The namespaces erased, newest first: who, when and how many rows of each kind."""
        return wire.ErasuresResponse(
            [erasure_out(e) for e in caller.services.namespaces.erasures(caller.principal)]
        )

    @get("/rebuild", sync_to_thread=False)
    def rebuild_status(self, caller: CallerDep) -> wire.RebuildOut:
        return rebuild_out(caller.services.admin.rebuild_status(caller.principal))
