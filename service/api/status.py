"""Liveness and what the service runs with; what is stored."""

from __future__ import annotations

from litestar import get

from schemas import wire
from service.edge.deps import CallerDep, PoolsDep, ServicesDep
from service.present.status import health_out, stats_out


@get("/health", tags=["health"])
async def health(services: ServicesDep, pools: PoolsDep) -> wire.Health:
    """What the service runs with; answered on threads of its own, whatever else runs."""
    return health_out(await pools.check(services.status.health))


@get("/v1/stats", sync_to_thread=True, tags=["stats"])
def stats(caller: CallerDep) -> wire.StatsResponse:
    """Entries, vectors and tokens per namespace and tier. An agent key sees its namespaces."""
    return stats_out(caller.services.status.stats(caller.principal))
