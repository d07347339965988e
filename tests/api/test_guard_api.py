"""What a web page in the user's browser can send the service, refused before it acts: the
cross-site "simple" requests (text/plain and form bodies, no preflight), foreign origins,
and foreign or rebound host names while the service runs without keys."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from tests.api.conftest import serve
from tests.http import ADMIN, KEYS, problem

EVENT = {"events": [{"id": "planted", "tier": "A", "text": "the attacker was here"}]}
BODY = b'{"events": [{"id": "planted", "tier": "A", "text": "the attacker was here"}]}'


def untouched(client: TestClient[Litestar], headers: dict[str, str] | None = None) -> bool:
    """No entry was planted."""
    return client.get("/v1/entries/planted", headers=headers).status_code == 404


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("text/plain", BODY),
        ("text/plain;charset=UTF-8", BODY),
        ("application/x-www-form-urlencoded", b"events=planted"),
        ("multipart/form-data; boundary=x", b'--x\r\nContent-Disposition: form-data; name="e"\r\n'),
        ("", BODY),
    ],
)
def test_a_body_that_is_not_json_is_refused(
    client: TestClient[Litestar], content_type: str, body: bytes
) -> None:
    sent = client.post("/v1/events", content=body, headers={"Content-Type": content_type})
    assert "Content-Type" in problem(sent, 415)["detail"]
    assert untouched(client)


def test_json_with_a_charset_is_json(client: TestClient[Litestar]) -> None:
    json = {"Content-Type": "application/json; charset=utf-8"}
    assert client.post("/v1/events", content=BODY, headers=json).status_code == 201
    plain = {"Content-Type": "text/plain; charset=utf-8"}
    problem(client.post("/v1/events", content=BODY, headers=plain), 415)


READS = ("/v1/stats", "/health", "/schema/openapi.json")


@pytest.mark.parametrize(
    ("header", "value", "reads"),
    [
        *(
            ("Origin", origin, READS[:1])
            for origin in (
                "https://evil.example",
                "http://evil.example:8080",
                "null",
                "https://localhost",
            )
        ),
        # A page on attacker.test, rebound to 127.0.0.1, calls "its own" origin.
        *(
            ("Host", host, READS)
            for host in ("evil.example:8080", "attacker.test", "attacker.test:8080")
        ),
    ],
)
def test_a_foreign_origin_or_rebound_host_is_refused_without_keys(
    client: TestClient[Litestar], header: str, value: str, reads: tuple[str, ...]
) -> None:
    sent = client.post("/v1/events", json=EVENT, headers={header: value})
    assert header in problem(sent, 403)["detail"]
    assert untouched(client)
    # Reading is refused too: such a page could read the answer through DNS rebinding.
    for path in reads:
        problem(client.get(path, headers={header: value}), 403)


def test_loopback_hosts_and_pages_are_served(client: TestClient[Litestar]) -> None:
    for host in ("127.0.0.1:8080", "localhost:8080", "[::1]:8080", "localhost", "127.0.0.1"):
        assert client.get("/v1/stats", headers={"Host": host}).status_code == 200, host
    for origin in ("http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000"):
        assert client.get("/v1/stats", headers={"Origin": origin}).status_code == 200, origin
    # A POST without a body needs no Content-Type.
    assert client.post("/v1/admin/rebuild").status_code == 202
    # Only the loopback names themselves: not a name that merely starts like one.
    problem(client.get("/v1/stats", headers={"Host": "localhost.evil.example"}), 403)


@pytest.fixture
def listed(runtime_for: Callable[..., Runtime]) -> Iterator[TestClient[Litestar]]:
    yield from serve(runtime_for(allowed_origins="https://notes.example,http://strata.lan:8080"))


def test_listed_origins_and_their_hosts_are_served_without_keys(
    listed: TestClient[Litestar],
) -> None:
    assert listed.post(
        "/v1/events", json=EVENT, headers={"Origin": "https://notes.example"}
    ).is_success
    assert listed.get("/v1/stats", headers={"Host": "strata.lan:8080"}).status_code == 200
    assert listed.get("/v1/stats", headers={"Origin": "http://localhost:5173"}).status_code == 200
    problem(listed.get("/v1/stats", headers={"Origin": "https://other.example"}), 403)
    problem(listed.get("/v1/stats", headers={"Host": "strata.lan"}), 403)


def test_with_keys_the_key_is_the_check_and_the_host_is_free(keyed: TestClient[Litestar]) -> None:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    elsewhere = {**admin, "Host": "strata.internal:8080", "Origin": "https://app.example"}
    assert keyed.post("/v1/events", json=EVENT, headers=elsewhere).status_code == 201
    # The body rule holds with keys too.
    plain = {**admin, "Content-Type": "text/plain"}
    problem(keyed.post("/v1/events", content=BODY, headers=plain), 415)


@pytest.fixture
def keyed_and_listed(runtime_for: Callable[..., Runtime]) -> Iterator[TestClient[Litestar]]:
    yield from serve(runtime_for(api_keys=KEYS, allowed_origins="https://app.example"))


def test_with_keys_and_a_list_only_listed_origins_are_served(
    keyed_and_listed: TestClient[Litestar],
) -> None:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    listed = {**admin, "Origin": "https://app.example"}
    assert keyed_and_listed.get("/v1/stats", headers=listed).status_code == 200
    for origin in ("https://evil.example", "http://localhost:5173"):
        refused = keyed_and_listed.get("/v1/stats", headers={**admin, "Origin": origin})
        assert "STRATA_ALLOWED_ORIGINS" in problem(refused, 403)["detail"]
    assert keyed_and_listed.get("/v1/stats", headers=admin).status_code == 200


MCP = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
LISTING = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def test_mcp_refuses_what_every_route_refuses_without_keys(client: TestClient[Litestar]) -> None:
    for origin in ("https://evil.example", "http://evil.example:8080"):
        refused = client.post("/mcp", json=LISTING, headers={**MCP, "Origin": origin})
        assert "Origin" in problem(refused, 403)["detail"]
    rebound = client.post("/mcp", json=LISTING, headers={**MCP, "Host": "attacker.test:8080"})
    assert "Host" in problem(rebound, 403)["detail"]
    plain = client.post("/mcp", content=b"{}", headers={**MCP, "Content-Type": "text/plain"})
    problem(plain, 415)
    local = client.post("/mcp", json=LISTING, headers={**MCP, "Origin": "http://localhost:5173"})
    assert local.status_code == 200 and local.json()["result"]["tools"]


def test_mcp_serves_the_listed_origins_and_their_hosts(listed: TestClient[Litestar]) -> None:
    for headers in ({"Origin": "https://notes.example"}, {"Host": "strata.lan:8080"}):
        assert listed.post("/mcp", json=LISTING, headers={**MCP, **headers}).status_code == 200
    other = listed.post("/mcp", json=LISTING, headers={**MCP, "Origin": "https://other.example"})
    problem(other, 403)


def test_with_keys_and_a_list_mcp_serves_only_listed_origins(
    keyed_and_listed: TestClient[Litestar],
) -> None:
    admin = {**MCP, "Authorization": f"Bearer {ADMIN}"}
    listed = {**admin, "Origin": "https://app.example"}
    assert keyed_and_listed.post("/mcp", json=LISTING, headers=listed).status_code == 200
    for origin in ("https://evil.example", "http://localhost:5173"):
        refused = keyed_and_listed.post("/mcp", json=LISTING, headers={**admin, "Origin": origin})
        assert "STRATA_ALLOWED_ORIGINS" in problem(refused, 403)["detail"]
