"""Dependencies every controller can ask for by parameter name."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.di import NamedDependency, Provide

from service.application import Services
from service.application.auth import Principal
from service.edge.limits import client_address
from service.edge.pools import Pools


def services_of(request: Request[Any, Any, Any]) -> Services:
    services: Services = request.app.state.services
    return services


def principal_of(request: Request[Any, Any, Any]) -> Principal:
    principal = services_of(request).keys.authenticate(request.headers.get("authorization"))
    return principal.at(client_address(request.scope))


def pools_of(request: Request[Any, Any, Any]) -> Pools:
    pools: Pools = request.app.state.pools
    return pools


DEPENDENCIES = {
    "pools": Provide(pools_of, sync_to_thread=False),
    "services": Provide(services_of, sync_to_thread=False),
    "principal": Provide(principal_of, sync_to_thread=False),
}

ServicesDep = NamedDependency[Services]
PrincipalDep = NamedDependency[Principal]
PoolsDep = NamedDependency[Pools]
