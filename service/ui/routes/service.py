"""This replica at a glance: traffic, search latency, embedding saved, engines, jobs
(admins only)."""

from __future__ import annotations

from litestar import get
from litestar.response import Template

from service.edge.deps import CallerDep
from service.edge.params import AnyRequest
from service.telemetry.glance import at_a_glance
from service.ui.pages import page


@get("/service", name="console-service", sync_to_thread=True)
def service_page(request: AnyRequest, caller: CallerDep) -> Template:
    caller.principal.require_admin()
    metrics = caller.services.telemetry.metrics
    glance = at_a_glance(metrics) if metrics is not None else None
    replica = metrics.replica if metrics is not None else None
    return page(request, "service.html", section="service", glance=glance, replica=replica)
