"""The console over the use cases on fakes: pages, sign-in, roles and CSRF, no browser."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import httpx
import pytest
from litestar.testing.transport import TestClientTransport

from service.bootstrap import Runtime
from tests.api.conftest import fake_runtime
from tests.apps import serving
from tests.fakes import FakeClock, FakeFiles
from tests.http import ADMIN, AGENT_ONE, KEYS, LOCAL

SECRET = "console-secret-for-tests-0123456789"
TOKEN = re.compile(r'name="csrf" value="([^"]+)"')

Client = httpx.Client


@pytest.fixture
def files() -> FakeFiles:
    return FakeFiles()


@pytest.fixture
def runtime(clock: FakeClock, files: FakeFiles) -> Runtime:
    """An admin key and an agent key scoped to namespace ``one``."""
    return fake_runtime(clock, files, api_keys=KEYS, ui_secret=SECRET)


@pytest.fixture
def console(runtime: Runtime) -> Iterator[Callable[[], Client]]:
    """Opens browsers on one running app, each with cookies of its own."""
    with serving(runtime) as running:

        def browser() -> Client:
            transport = TestClientTransport(client=running)
            return httpx.Client(
                base_url=LOCAL,
                follow_redirects=True,
                transport=transport,  # type: ignore[arg-type]
            )  # nothing to close: the transport holds no connection

        yield browser


def token(page: httpx.Response) -> str:
    """The CSRF token the page's forms carry."""
    found = TOKEN.search(page.text)
    assert found, page.text
    return found.group(1)


def sign_in(client: Client, key: str) -> httpx.Response:
    """Signs in through the form, as a person would; returns the page it lands on."""
    form = client.get("/ui/sign-in")
    assert form.status_code == 200, form.text
    return client.post("/ui/sign-in", data={"key": key, "csrf": token(form), "next": "/ui/"})


@pytest.fixture
def admin(console: Callable[[], Client]) -> Client:
    client = console()
    assert sign_in(client, ADMIN).status_code == 200
    return client


@pytest.fixture
def agent(console: Callable[[], Client]) -> Client:
    client = console()
    assert sign_in(client, AGENT_ONE).status_code == 200
    return client
