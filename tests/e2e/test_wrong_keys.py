"""Wrong keys against the real server process: ``X-Forwarded-For`` names the client only when
it comes from a proxy named in STRATA_TRUSTED_PROXIES, and a wrong key costs its sender, not
the agents beside it. Clients connect from addresses of their own on loopback (127.0.0.2,
127.0.0.3, ...), so each test holds its own counts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.test_server import Server

ADMIN = "admin-key-0123456789"
AGENT = "agent-one-0123456789"
OTHER = "agent-two-0123456789"
KEYS = f"{ADMIN}=admin;{AGENT}=agent:one;{OTHER}=agent:two"
LISTING = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
MCP = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


def start(root: Path, **env: str) -> Server:
    return Server(root / "data", {"STRATA_API_KEYS": KEYS, "STRATA_JOBS": "off", **env})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Keys, and the defaults: no proxy is trusted."""
    running = start(tmp_path_factory.mktemp("untrusted"))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def behind_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Keys, and 127.0.0.1 the trusted proxy."""
    running = start(tmp_path_factory.mktemp("trusted"), STRATA_TRUSTED_PROXIES="127.0.0.1")
    yield running
    running.stop()


def client(server: Server, address: str) -> httpx.Client:
    """A client of ``server`` connecting from ``address`` (one of loopback's)."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.url, transport=transport, timeout=30)


def stats(http: httpx.Client, key: str, forwarded_for: str | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"}
    if forwarded_for is not None:
        headers["X-Forwarded-For"] = forwarded_for
    return http.get("/v1/stats", headers=headers)


def guess(n: int) -> str:
    return f"guessed-key-{n:010}"


def test_spoofed_forwarded_for_headers_from_an_untrusted_client_meet_429(server: Server) -> None:
    """From 127.0.0.1, where every client of a service on loopback is, and which uvicorn
    trusts with X-Forwarded-For unless told otherwise."""
    with client(server, "127.0.0.1") as guesser:
        answers = [stats(guesser, guess(n), f"198.51.100.{n}") for n in range(15)]
    assert [a.status_code for a in answers] == [401] * 10 + [429] * 5
    assert "from client 127.0.0.1:" in answers[-1].json()["detail"]
    assert answers[-1].headers["retry-after"] == "6"


def test_a_trusted_proxy_names_the_client_it_forwards_for(behind_proxy: Server) -> None:
    with client(behind_proxy, "127.0.0.1") as proxy, client(behind_proxy, "127.0.0.2") as outsider:
        for n in range(10):
            assert stats(proxy, guess(n), "203.0.113.1, 192.0.2.55").status_code == 401
        held = stats(proxy, AGENT, "192.0.2.55")
        assert held.status_code == 429
        assert "from client 192.0.2.55:" in held.json()["detail"]
        assert stats(proxy, guess(10), "192.0.2.56").status_code == 401, "another client"
        # Twelve wrong keys from a client that is not the proxy, naming 192.0.2.57: its own
        # address is held, and a right key the proxy forwards from 192.0.2.57 is served.
        spoofed = [stats(outsider, guess(20 + n), "192.0.2.57").status_code for n in range(12)]
        assert spoofed == [401] * 10 + [429] * 2
        assert "from client 127.0.0.2:" in stats(outsider, guess(40)).json()["detail"]
        assert stats(proxy, AGENT, "192.0.2.57").status_code == 200


def test_a_right_key_keeps_working_where_another_client_sends_wrong_keys(server: Server) -> None:
    with client(server, "127.0.0.3") as agent, client(server, "127.0.0.3") as guesser:
        assert stats(agent, AGENT).status_code == 200
        answers = [stats(guesser, guess(100 + n)).status_code for n in range(15)]
        assert answers == [401] * 10 + [429] * 5
        assert stats(agent, AGENT).status_code == 200
        mcp = agent.post("/mcp", json=LISTING, headers={**MCP, "Authorization": f"Bearer {AGENT}"})
        assert mcp.status_code == 200
        assert stats(guesser, ADMIN).status_code == 429, "a right key never served here waits"


def test_a_stale_key_meets_429_itself_and_holds_back_no_other_agent(server: Server) -> None:
    stale = "a-key-since-rotated-0123"
    with client(server, "127.0.0.4") as host:
        answers = [stats(host, stale) for _ in range(15)]
        assert [a.status_code for a in answers] == [401] * 10 + [429] * 5
        assert "with this key: 10;" in answers[-1].json()["detail"]
        assert stale not in answers[-1].text
        # Agents beside it on the same address, never served before, start as ever.
        assert stats(host, OTHER).status_code == 200
        assert stats(host, ADMIN).status_code == 200


def test_uvicorn_s_forwarded_allow_ips_is_not_read(tmp_path: Path) -> None:
    running = start(tmp_path, FORWARDED_ALLOW_IPS="*")
    try:
        with client(running, "127.0.0.1") as guesser:
            answers = [stats(guesser, guess(n), f"198.51.100.{n}") for n in range(11)]
        assert [a.status_code for a in answers] == [401] * 10 + [429]
        assert "from client 127.0.0.1:" in answers[-1].json()["detail"]
    finally:
        running.stop()
    assert "FORWARDED_ALLOW_IPS is not read" in running.log.read_text()
