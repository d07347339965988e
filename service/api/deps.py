"""Dependencies every controller can ask for by parameter name."""

from __future__ import annotations

from litestar import Request
from litestar.di import NamedDependency, Provide

from service.auth import Principal
from service.resources import Resources


def resources_of(request: Request) -> Resources:
    return request.app.state.resources


def principal_of(request: Request) -> Principal:
    return resources_of(request).keys.authenticate(request.headers.get("authorization"))


DEPENDENCIES = {
    "resources": Provide(resources_of, sync_to_thread=False),
    "principal": Provide(principal_of, sync_to_thread=False),
}

ResourcesDep = NamedDependency[Resources]
PrincipalDep = NamedDependency[Principal]
