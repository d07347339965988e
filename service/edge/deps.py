"""Dependencies every controller can ask for by parameter name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from litestar.di import NamedDependency, Provide
from litestar.params import SkipValidation

from service.application import Services
from service.application.auth import Principal
from service.edge.limits import client_address
from service.edge.params import AnyRequest
from service.edge.pools import Pools


def services_of(request: AnyRequest) -> Services:
    services: Services = request.app.state.services
    return services


def principal_of(request: AnyRequest) -> Principal:
    principal = services_of(request).keys.authenticate(request.headers.get("authorization"))
    return principal.at(client_address(request.scope))


def pools_of(request: AnyRequest) -> Pools:
    pools: Pools = request.app.state.pools
    return pools


T = TypeVar("T")


@dataclass(frozen=True)
class Caller:
    """Who asks (a key's principal, at the client's address) and what a handler calls for
    them: the use cases, and the pools their blocking writes run on."""

    services: Services
    principal: Principal
    pools: Pools

    async def write(self, call: Callable[..., T], *args: Any) -> T:
        """``call(principal, *args)`` on the write pool."""
        return await self.pools.write(call, self.principal, *args)

    async def aside(self, call: Callable[..., T], *args: Any) -> T:
        """``call(principal, *args)`` on the pool of an admin's long work."""
        return await self.pools.aside(call, self.principal, *args)


def caller_of(services: ServicesDep, principal: PrincipalDep, pools: PoolsDep) -> Caller:
    """The front end's own ``principal`` (the console's is its session's)."""
    return Caller(services, principal, pools)


DEPENDENCIES = {
    "caller": Provide(caller_of, sync_to_thread=False),
    "pools": Provide(pools_of, sync_to_thread=False),
    "services": Provide(services_of, sync_to_thread=False),
    "principal": Provide(principal_of, sync_to_thread=False),
}

# The service's own objects, not a client's input: given as they are, never validated.
ServicesDep = NamedDependency[SkipValidation[Services]]
PrincipalDep = NamedDependency[SkipValidation[Principal]]
PoolsDep = NamedDependency[SkipValidation[Pools]]
CallerDep = NamedDependency[SkipValidation[Caller]]
