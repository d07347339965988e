"""The lifecycle jobs and the index rebuild (admins only)."""

from __future__ import annotations

from litestar import get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template

from schemas import wire
from service.edge.deps import CallerDep
from service.edge.params import AnyRequest
from service.present.admin import job_out, rebuild_out
from service.ui.pages import page, redirect

JOBS = "/ui/jobs"


@get("/jobs", name="console-jobs", sync_to_thread=True)
def jobs_page(request: AnyRequest, caller: CallerDep) -> Template:
    jobs = [job_out(j) for j in caller.services.admin.list_jobs(caller.principal)]
    rebuild = rebuild_out(caller.services.admin.rebuild_status(caller.principal))
    return page(request, "jobs.html", section="jobs", jobs=jobs, rebuild=rebuild)


@post("/jobs/{name:str}/run", name="console-run-job")
async def run_job(request: AnyRequest, name: FromPath[str], caller: CallerDep) -> Redirect:
    """Run a job now; the page comes back once it has finished."""
    done = await caller.write(caller.services.admin.run_job, name)
    return redirect(request, f"{JOBS}#job-{done.name}")


@post("/jobs/rebuild", name="console-rebuild", sync_to_thread=False)
def start_rebuild(request: AnyRequest, caller: CallerDep) -> Redirect:
    """Start rebuilding the indexes from the ledger; the jobs page shows its progress."""
    caller.services.admin.start_rebuild(caller.principal)
    return redirect(request, f"{JOBS}#rebuild")


@get("/jobs/rebuild/progress", name="console-rebuild-progress", sync_to_thread=False)
def rebuild_progress(caller: CallerDep) -> wire.RebuildOut:
    """The rebuild's state as JSON, polled by the page's script."""
    return rebuild_out(caller.services.admin.rebuild_status(caller.principal))
