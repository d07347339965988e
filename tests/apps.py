"""The web app over given services, built once per test module for each set of settings.

Building the app costs a third of a second (Litestar models every handler's signature),
several times what most tests spend on their requests. What the app is made of depends on
its settings alone; what a test writes and reads lives in its services, which the app
finds on ``app.state`` at each request. So a test module reuses an app built for equal
settings, and each test still runs its own lifespan (fresh pools, a fresh MCP session
manager) over its own services: no state crosses from one test to the next."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from litestar import Litestar
from litestar.testing import TestClient

from service.api.pools import reads_pool
from service.app import create_app
from service.application import Services
from service.settings import Settings
from tests.http import LOCAL


@dataclass
class Built:
    settings: Settings
    app: Litestar
    running: bool = False


BUILT: list[Built] = []
"""The apps of the current test module (``forget_apps`` empties it after each module).
Settings hold dicts, so they are compared, not hashed."""


def forget_apps() -> None:
    BUILT.clear()


def idle_app(services: Services) -> Built:
    """An app built for settings equal to those of ``services`` and not running now (two
    clients at once need two apps: the state is the app's), else a new one."""
    for built in BUILT:
        if not built.running and built.settings == services.settings:
            # create_app sets the executor of the reads' pool; the last app built set its own.
            reads_pool(services.settings)
            return built
    built = Built(services.settings, create_app(services=services))
    BUILT.append(built)
    return built


@contextmanager
def serving(
    services: Services, *, base_url: str = LOCAL, raise_server_exceptions: bool = True
) -> Iterator[TestClient[Litestar]]:
    """A client of the app over ``services``, started (its lifespan run) and stopped."""
    built = idle_app(services)
    built.running = True
    try:
        with TestClient(
            built.app, base_url=base_url, raise_server_exceptions=raise_server_exceptions
        ) as client:
            # The lifespan hands the app the services it was built with; this test's own
            # take their place before any request.
            built.app.state.services = services
            yield client
    finally:
        built.running = False
