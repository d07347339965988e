"""The web app over given services, built and started once per test module for each set of
settings.

Building the app costs a third of a second (Litestar models every handler's signature) and
starting it as much again (the MCP server models its tools), several times what most tests
spend on their requests. What the app is made of depends on its settings alone; what a test
writes and reads lives in its services, which the app finds on ``app.state`` at each
request; what its start made (the thread pools' limits, the stateless MCP session manager)
holds nothing from one request to the next. So a test module reuses a running app of equal
settings, and each test gets its own client (its own cookies) over its own services: no
state crosses from one test to the next."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

from anyio.from_thread import BlockingPortal
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.bootstrap import Runtime
from service.domain.ports import Embedder
from service.edge.pools import reads_pool
from service.lifespan import open_runtime
from service.settings import Settings
from tests.http import LOCAL


@dataclass
class Running:
    settings: Settings
    app: Litestar
    portal: BlockingPortal
    """The event loop the app was started in, which every client of it sends through."""
    serving: bool = False


RUNNING: list[Running] = []
"""The apps the current test module started (``stop_apps`` stops them after each module).
Settings hold dicts, so they are compared, not hashed."""
STARTED = ExitStack()


def stop_apps() -> None:
    RUNNING.clear()
    STARTED.close()


def idle_app(runtime: Runtime) -> Running:
    """A running app of settings equal to those of ``runtime`` that serves no client now
    (two clients at once need two apps: the services are the app's), else a new one."""
    for running in RUNNING:
        if not running.serving and running.settings == runtime.services.settings:
            # create_app sets the executor of the reads' pool; the last app built set its own.
            reads_pool(runtime.services.settings)
            return running
    app = create_app(services=runtime.services)
    started = STARTED.enter_context(TestClient(app))
    running = Running(runtime.services.settings, app, started.blocking_portal)
    RUNNING.append(running)
    return running


@contextmanager
def serving(
    runtime: Runtime, *, base_url: str = LOCAL, raise_server_exceptions: bool = True
) -> Iterator[TestClient[Litestar]]:
    """A new client of a running app over ``runtime``'s services."""
    running = idle_app(runtime)
    running.serving = True
    try:
        running.app.state.services = runtime.services
        client = TestClient(
            running.app, base_url=base_url, raise_server_exceptions=raise_server_exceptions
        )
        client.blocking_portal = running.portal  # sends through the running app, not a new one
        yield client
    finally:
        running.serving = False


@contextmanager
def opened_runtime(settings: Settings, embedder: Embedder) -> Iterator[Runtime]:
    """The runtime of ``settings`` with ``embedder`` for its model, closed after."""
    runtime = open_runtime(settings, embedder=embedder)
    try:
        yield runtime
    finally:
        runtime.close()


@contextmanager
def client_of(runtime: Runtime) -> Iterator[TestClient[Litestar]]:
    """A client of an app of its own over ``runtime``'s services, started and stopped with
    the client (as a server process would be, with its jobs)."""
    with TestClient(create_app(services=runtime.services), base_url=LOCAL) as client:
        yield client


@contextmanager
def served_runtime(
    settings: Settings, embedder: Embedder
) -> Iterator[tuple[Runtime, TestClient[Litestar]]]:
    """The runtime of ``settings`` and a client of an app of its own over it."""
    with opened_runtime(settings, embedder) as runtime, client_of(runtime) as client:
        yield runtime, client
