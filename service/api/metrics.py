"""``GET /metrics``: the Prometheus exposition of this replica."""

from __future__ import annotations

import hmac

from litestar import Response, get

from service.application import Services
from service.edge.deps import PoolsDep, ServicesDep
from service.edge.params import AnyRequest
from service.errors import NotFound


@get("/metrics", tags=["health"], media_type="text/plain")
async def metrics(request: AnyRequest, services: ServicesDep, pools: PoolsDep) -> Response[bytes]:
    """This replica's metrics in the Prometheus text format, or OpenMetrics when the
    ``Accept`` header asks for it. Open without API keys (the service is on loopback then);
    with keys, for admin keys and the STRATA_METRICS_TOKEN bearer token."""
    telemetry = services.telemetry.metrics
    if telemetry is None:
        raise NotFound("metrics are off (STRATA_METRICS=off)")
    authorize(services, request.headers.get("authorization"))
    body, content_type = await pools.check(telemetry.render, request.headers.get("accept", ""))
    # Litestar adds the charset of a text type itself.
    return Response(body, media_type=content_type.replace("; charset=utf-8", ""))


def authorize(services: Services, authorization: str | None) -> None:
    """Anyone without API keys; else the metrics token, or an admin key (401 without a
    valid key or token, 403 for an agent key)."""
    if not services.keys.enabled:
        return
    token = services.settings.telemetry.metrics_token
    scheme, _, presented = (authorization or "").partition(" ")
    if token and scheme.lower() == "bearer" and hmac.compare_digest(presented.strip(), token):
        return
    services.keys.authenticate(authorization).require_admin()
