"""The client a request is held as: its connection's peer, unless that peer is a proxy named
in STRATA_TRUSTED_PROXIES, whose ``X-Forwarded-For`` then names it, for the REST API,
``/mcp`` and the console's sign-in alike. The real server's own reading of the headers is
off (``tests/e2e/test_wrong_keys.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from tests.api.conftest import serve
from tests.http import AS_AGENT, KEYS, at_address, problem
from tests.ui.conftest import SECRET, token

Serve = Callable[..., TestClient[Litestar]]
LISTING = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
MCP = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


@pytest.fixture
def app(runtime_for: Callable[..., Runtime]) -> Iterator[Serve]:
    with ExitStack() as stack:
        yield lambda **env: stack.enter_context(contextmanager(serve)(runtime_for(**env)))


def wrong(n: int, forwarded_for: str) -> dict[str, str]:
    return {"Authorization": f"Bearer not-a-key-{n:010}", "X-Forwarded-For": forwarded_for}


def test_without_trusted_proxies_x_forwarded_for_names_no_one(app: Serve) -> None:
    local = at_address(app(api_keys=KEYS), "127.0.0.1")
    answers = [local.get("/v1/stats", headers=wrong(n, f"198.51.100.{n}")) for n in range(15)]
    assert [a.status_code for a in answers] == [401] * 10 + [429] * 5
    assert "from client 127.0.0.1:" in answers[-1].json()["detail"]


def test_a_trusted_proxy_names_the_client_for_the_api_mcp_and_the_console(app: Serve) -> None:
    client = app(api_keys=KEYS, ui_secret=SECRET, trusted_proxies="10.0.0.0/8")
    balancer = at_address(client, "10.0.0.2")
    named = "203.0.113.1, 192.0.2.55"  # the client's own claim, then what the proxy saw
    for n in range(0, 8, 2):
        problem(balancer.get("/v1/stats", headers=wrong(n, named)), 401)
        problem(balancer.post("/mcp", json=LISTING, headers={**MCP, **wrong(n + 1, named)}), 401)
    form = balancer.get("/ui/sign-in")
    for n in (8, 9):
        data = {"key": f"not-a-key-{n:010}", "csrf": token(form), "next": "/ui/"}
        signing_in = balancer.post("/ui/sign-in", data=data, headers={"X-Forwarded-For": named})
        assert signing_in.status_code == 401
    held = balancer.get("/v1/stats", headers={**AS_AGENT, "X-Forwarded-For": "192.0.2.55"})
    assert held.status_code == 429
    assert "from client 192.0.2.55:" in held.json()["detail"]
    beside = {**AS_AGENT, "X-Forwarded-For": "192.0.2.56"}
    assert balancer.get("/v1/stats", headers=beside).status_code == 200
    assert balancer.get("/v1/stats", headers=AS_AGENT).status_code == 200, "the proxy's own"
    # A client that is not a trusted proxy names no one, whatever it sends.
    outsider = at_address(client, "198.51.100.4")
    headers = {**AS_AGENT, "X-Forwarded-For": "192.0.2.55"}
    assert outsider.get("/v1/stats", headers=headers).status_code == 200


@pytest.mark.parametrize(("peer", "secure"), [("10.0.0.2", True), ("198.51.100.4", False)])
def test_a_trusted_proxy_names_the_scheme_the_console_s_cookie_is_secured_for(
    app: Serve, peer: str, secure: bool
) -> None:
    client = app(api_keys=KEYS, ui_secret=SECRET, trusted_proxies="10.0.0.0/8")
    page = at_address(client, peer).get("/ui/sign-in", headers={"X-Forwarded-Proto": "https"})
    cookie = page.headers["set-cookie"].lower()
    assert ("; secure" in cookie) is secure


def test_a_request_from_a_proxy_without_the_header_is_the_proxy_s(app: Serve) -> None:
    client = app(api_keys=KEYS, trusted_proxies="10.0.0.0/8")
    balancer: httpx.Client = at_address(client, "10.0.0.2")
    for n in range(10):
        problem(balancer.get("/v1/stats", headers={"Authorization": f"Bearer nope-{n:012}"}), 401)
    held = balancer.get("/v1/stats", headers={"Authorization": "Bearer nope-000000000099"})
    assert "from client 10.0.0.2:" in held.json()["detail"]
