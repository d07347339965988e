"""Limits per key, as a client meets them: 429 with ``Retry-After`` and problem details
naming the limit, per role, one key's load never refusing another key; without keys, per
client address only when asked. The clock is the test's: nothing here sleeps."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from service.lib.fair import ASKER, FairExecutor
from tests.api.conftest import serve
from tests.api.test_pools import GatedEmbedder
from tests.apps import serving
from tests.fakes import FakeClock
from tests.http import (
    AGENT_ONE,
    AS_ADMIN,
    AS_AGENT,
    KEYS,
    at_address,
    fingerprint,
    problem,
)

AGENT = fingerprint(AGENT_ONE)
Serve = Callable[..., TestClient[Litestar]]


@pytest.fixture
def app(runtime_for: Callable[..., Runtime]) -> Iterator[Serve]:
    """Serves the app on fakes for ``STRATA_*`` settings given as keyword arguments; each
    stops when the test ends."""
    with ExitStack() as stack:
        yield lambda **env: stack.enter_context(contextmanager(serve)(runtime_for(**env)))


LISTING = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
MCP = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


def too_many(response: httpx.Response) -> dict[str, Any]:
    """The problem details of a 429, checked to say when to come back."""
    body = problem(response, 429)
    assert body["title"] == "Too many requests"
    seconds = response.headers["retry-after"]
    assert seconds.isdigit() and int(seconds) >= 1
    assert body["detail"].endswith(f"; try again in {seconds} s")
    return body


def decision(n: int, tier: str = "A") -> dict[str, Any]:
    return {"id": f"d{n}", "tier": tier, "text": f"decision number {n} about the billing queue"}


def served(client: TestClient[Litestar], headers: dict[str, str] | None, times: int) -> None:
    """``times`` reads of the stats with ``headers``, each served."""
    for _ in range(times):
        assert client.get("/v1/stats", headers=headers).status_code == 200


def test_a_key_past_its_requests_per_second_gets_429_and_another_key_does_not(
    app: Serve, clock: FakeClock
) -> None:
    client = app(api_keys=KEYS, requests_per_second='{"agent": 3}')
    served(client, AS_AGENT, 3)
    refused = client.post("/v1/search", json={"query": "billing"}, headers=AS_AGENT)
    body = too_many(refused)
    assert body["detail"].startswith(f"requests per second of key {AGENT}'s role agent: 3;")
    assert refused.headers["retry-after"] == "1"
    served(client, AS_ADMIN, 10)  # the admin key's allowance is its own
    clock.advance(int(refused.headers["retry-after"]))  # a second: the whole allowance again
    served(client, AS_AGENT, 3)
    too_many(client.get("/v1/stats", headers=AS_AGENT))


def test_each_role_has_its_own_requests_per_second(
    app: Serve,
) -> None:
    client = app(api_keys=KEYS, requests_per_second='{"admin": 2}')
    served(client, AS_ADMIN, 2)
    detail = too_many(client.get("/v1/stats", headers=AS_ADMIN))["detail"]
    assert "'s role admin: 2;" in detail
    served(client, AS_AGENT, 20)  # the agent role keeps its default, 20
    too_many(client.get("/v1/stats", headers=AS_AGENT))


def test_requests_without_a_valid_key_are_not_counted_and_health_never_is(
    app: Serve,
) -> None:
    client = app(api_keys=KEYS, requests_per_second='{"agent": 1}')
    for _ in range(5):
        problem(client.get("/v1/stats"), 401)
        problem(client.get("/v1/stats", headers={"Authorization": "Bearer no-such-key"}), 401)
        assert client.get("/health", headers=AS_AGENT).status_code == 200
    assert client.get("/v1/stats", headers=AS_AGENT).status_code == 200


def test_a_write_past_the_key_s_chunks_per_minute_gets_429_and_writes_nothing(
    app: Serve, clock: FakeClock
) -> None:
    client = app(api_keys=KEYS, chunks_embedded_per_minute='{"agent": 4}')
    batch = {"events": [decision(1), decision(2), decision(3)]}
    assert client.post("/v1/events", json=batch, headers=AS_AGENT).status_code == 201
    more = {"events": [decision(4), decision(5, tier="C")]}
    refused = client.post("/v1/events", json=more, headers=AS_AGENT)
    body = too_many(refused)
    assert body["detail"].startswith(
        f"chunks embedded per minute of key {AGENT}'s role agent: 4 (this write needs 2);"
    )
    assert refused.headers["retry-after"] == "15"  # one chunk short, at 4 a minute
    problem(client.get("/v1/entries/d4", headers=AS_AGENT), 404)
    assert client.post("/v1/events", json=more, headers=AS_ADMIN).status_code == 201
    clock.advance(15)
    assert client.post("/v1/events", json=more, headers=AS_AGENT).status_code == 201


def test_a_write_of_more_chunks_than_one_write_may_embed_gets_413_and_writes_nothing(
    app: Serve,
) -> None:
    """However whole its allowance, no agent's one write takes longer than its bound of
    chunks (tier E text counted as in the allowance): the batch is sent again smaller."""
    client = app(api_keys=KEYS, chunks_embedded_per_write='{"agent": 2}')
    three = {"events": [decision(1), decision(2), decision(3, tier="C")]}
    refused = client.post("/v1/events", json=three, headers=AS_AGENT)
    body = problem(refused, 413)
    assert body["detail"] == (
        f"chunks embedded per write of key {AGENT}'s role agent: 2 (this write needs 3); "
        "send it in smaller batches"
    )
    problem(client.get("/v1/entries/d1", headers=AS_AGENT), 404)
    log = {"events": [{"id": "log", "tier": "E", "text": "GET /invoices 503 " * 1200}]}
    assert problem(client.post("/v1/events", json=log, headers=AS_AGENT), 413)
    two = {"events": [decision(1), decision(2)]}
    assert client.post("/v1/events", json=two, headers=AS_AGENT).status_code == 201
    # An admin's writes are not held to it, by default.
    assert client.post("/v1/events", json=three, headers=AS_ADMIN).status_code == 201


def test_tier_e_text_takes_a_chunk_for_every_10_000_characters_of_the_allowance(
    app: Serve, clock: FakeClock
) -> None:
    """Tier E is not embedded, but its tokens are counted and its chunks made and indexed:
    a key writing long tier E texts meets its allowance as one embedding does."""
    client = app(api_keys=KEYS, chunks_embedded_per_minute='{"agent": 10}')
    text = "GET /invoices 503 " * 3361 + "ok"  # 60,500 characters: 6.05 chunks

    def log(n: int) -> dict[str, Any]:
        return {"events": [{"id": f"log-{n}", "tier": "E", "text": text}]}

    assert client.post("/v1/events", json=log(1), headers=AS_AGENT).status_code == 201
    refused = client.post("/v1/events", json=log(2), headers=AS_AGENT)
    body = too_many(refused)
    assert body["detail"].startswith(
        f"chunks embedded per minute of key {AGENT}'s role agent: 10 (this write needs 6.1);"
    )
    assert refused.headers["retry-after"] == "13"  # 3.95 left: 2.1 short, at 10 a minute
    problem(client.get("/v1/entries/log-2", headers=AS_AGENT), 404)
    # A line of log takes a sliver; another key's allowance is its own.
    line = {"events": [decision(3, tier="E")]}
    assert client.post("/v1/events", json=line, headers=AS_AGENT).status_code == 201
    assert client.post("/v1/events", json=log(2), headers=AS_ADMIN).status_code == 201
    clock.advance(13)
    assert client.post("/v1/events", json=log(3), headers=AS_AGENT).status_code == 201
    assert client.get("/v1/entries/log-3", headers=AS_AGENT).json()["text"] == text


def test_one_key_s_writes_in_flight_never_hold_up_another_key_s_searches(
    clock: FakeClock, runtime_for: Callable[..., Runtime]
) -> None:
    """A key with its one place in flight taken by a slow write is refused more; the admin
    key searches meanwhile."""
    runtime = runtime_for(api_keys=KEYS, requests_in_flight='{"agent": 1}')
    embedder = GatedEmbedder()
    runtime.memory.preparer.embedder = embedder
    with serving(runtime) as client:
        written: list[int] = []
        slow = {"events": [{"id": "s", "tier": "A", "text": "a slow decision"}]}
        writer = threading.Thread(
            target=lambda: written.append(
                client.post("/v1/events", json=slow, headers=AS_AGENT).status_code
            )
        )
        writer.start()
        try:
            assert embedder.held.acquire(timeout=30), "the write is in flight"
            body = too_many(client.get("/v1/stats", headers=AS_AGENT))
            assert body["detail"].startswith(f"requests in flight of key {AGENT}'s role agent: 1;")
            search = {"query": "decision", "mode": "bm25"}
            assert client.post("/v1/search", json=search, headers=AS_ADMIN).status_code == 200
        finally:
            embedder.gate.set()
            writer.join(60)
        assert written == [201]
        assert client.get("/v1/stats", headers=AS_AGENT).status_code == 200


def test_mcp_requests_count_against_the_key_as_rest_ones_do(
    app: Serve,
) -> None:
    client = app(api_keys=KEYS, requests_per_second='{"agent": 1}')
    assert client.post("/mcp", json=LISTING, headers={**MCP, **AS_AGENT}).status_code == 200
    refused = client.post("/mcp", json=LISTING, headers={**MCP, **AS_AGENT})
    assert "requests per second" in too_many(refused)["detail"]
    assert client.post("/mcp", json=LISTING, headers={**MCP, **AS_ADMIN}).status_code == 200


def test_reads_and_writes_take_the_turns_of_the_key_that_sends_them(
    app: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    """REST, MCP (whose tools run in tasks of their own) and the pools alike: every call
    a request hands to a pool is its key's (``service/lib/fair.py``), else its address's."""
    seen: list[str] = []

    def noting(submit: Callable[..., Any]) -> Callable[..., Any]:
        def submitted(self: FairExecutor, *args: Any, **kwargs: Any) -> Any:
            seen.append(ASKER.get())
            return submit(self, *args, **kwargs)

        return submitted

    monkeypatch.setattr(FairExecutor, "submit", noting(FairExecutor.submit))
    client = app(api_keys=KEYS)
    search = {"query": "billing queue"}
    assert client.post("/v1/search", json=search, headers=AS_AGENT).status_code == 200
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    call["params"] = {"name": "search", "arguments": search}
    assert client.post("/mcp", json=call, headers={**MCP, **AS_AGENT}).status_code == 200
    write = {"events": [decision(1)]}
    assert client.post("/v1/events", json=write, headers=AS_AGENT).status_code == 201
    assert seen and set(seen) == {f"key {AGENT}"}
    seen.clear()
    opened = app()
    assert opened.post("/v1/search", json=search).status_code == 200
    assert set(seen) == {"client testclient"}


def test_without_keys_no_address_is_limited_unless_asked(
    app: Serve,
) -> None:
    client = app(requests_per_second='{"admin": 1}')
    served(client, None, 5)


def test_without_keys_each_address_can_be_held_to_the_admin_role_s_limits(
    app: Serve, clock: FakeClock
) -> None:
    client = app(requests_per_second='{"admin": 1}', limit_addresses="on")
    here, there = at_address(client, "127.0.0.1"), at_address(client, "::1")
    assert here.get("/v1/stats").status_code == 200
    body = too_many(here.get("/v1/stats"))
    assert body["detail"].startswith("requests per second of client 127.0.0.1's role admin: 1;")
    assert there.get("/v1/stats").status_code == 200, "another address has its own"
    clock.advance(1)
    assert here.get("/v1/stats").status_code == 200


def test_without_keys_writes_take_the_address_s_chunks_when_asked(
    app: Serve,
) -> None:
    client = app(chunks_embedded_per_minute='{"admin": 2}', limit_addresses="on")
    batch = {"events": [decision(1), decision(2)]}
    assert client.post("/v1/events", json=batch).status_code == 201
    detail = too_many(client.post("/v1/events", json={"events": [decision(3)]}))["detail"]
    assert detail.startswith("chunks embedded per minute of client testclient's role admin: 2")


def test_429_is_documented_where_it_can_happen(app: Serve) -> None:
    def documented(**env: str) -> dict[str, dict[str, Any]]:
        client = app(**env)
        spec = client.get("/schema/openapi.json", headers=AS_ADMIN).json()
        return {
            f"{method.upper()} {path}": operation["responses"]
            for path, item in spec["paths"].items()
            for method, operation in item.items()
            if method in ("get", "post", "put", "patch", "delete")
        }

    for responses in (documented(api_keys=KEYS), documented(limit_addresses="on")):
        for name, answers in responses.items():
            if name == "GET /health":
                assert "429" not in answers
                continue
            assert "429" in answers, name
            retry = answers["429"]["headers"]["Retry-After"]
            assert retry["required"] and retry["schema"] == {"type": "integer", "minimum": 1}
    assert not any("429" in answers for answers in documented().values()), "open: no limit"


def test_refused_keys_are_held_to_an_allowance_per_address_across_rest_and_mcp(
    app: Serve, clock: FakeClock
) -> None:
    """Ten new wrong keys a minute from one address, on /v1 and /mcp together; then 429 for
    any key not yet served from that address, right or wrong, while other addresses are
    served, and a key served there before is served on."""
    client = app(api_keys=KEYS)
    guesser, neighbour = at_address(client, "10.0.0.1"), at_address(client, "10.0.0.2")

    def wrong(n: int) -> dict[str, str]:
        return {"Authorization": f"Bearer not-a-key-{n:010}"}

    for n in range(10):
        if n % 2:
            answered = guesser.post("/mcp", json=LISTING, headers={**MCP, **wrong(n)})
        else:
            answered = guesser.get("/v1/stats", headers=wrong(n))
        problem(answered, 401)
    for refused in (
        guesser.get("/v1/stats", headers=wrong(10)),
        guesser.post("/mcp", json=LISTING, headers={**MCP, **wrong(11)}),
        guesser.get("/v1/stats", headers=AS_AGENT),  # the right key learns nothing here
    ):
        body = too_many(refused)
        assert body["detail"].startswith("failed authentications per minute from client 10.0.0.1")
        assert refused.headers["retry-after"] == "6"  # a minute's ten: one every 6 s
    problem(guesser.get("/v1/stats"), 401)  # no key sent: no guess, and told to send one
    assert neighbour.get("/v1/stats", headers=AS_AGENT).status_code == 200
    assert neighbour.post("/mcp", json=LISTING, headers={**MCP, **AS_AGENT}).status_code == 200
    problem(neighbour.get("/v1/stats", headers=wrong(0)), 401)
    clock.advance(6)
    assert guesser.get("/v1/stats", headers=AS_AGENT).status_code == 200
    problem(guesser.get("/v1/stats", headers=wrong(12)), 401)
    too_many(guesser.get("/v1/stats", headers=wrong(13)))
    assert guesser.get("/v1/stats", headers=AS_AGENT).status_code == 200, "served here before"
    too_many(guesser.get("/v1/stats", headers=AS_ADMIN))  # never served here: as a guess


def test_a_stale_key_is_held_on_its_own_and_its_neighbours_are_served(app: Serve) -> None:
    """One agent on the host retries a key the service no longer has: that key meets 429,
    on /v1 and /mcp alike, and agents beside it on the same address are served."""
    client = app(api_keys=KEYS)
    host = at_address(client, "127.0.0.1")
    stale = {"Authorization": "Bearer a-key-since-rotated-0123"}
    for _ in range(10):
        problem(host.get("/v1/stats", headers=stale), 401)
    for refused in (
        host.get("/v1/stats", headers=stale),
        host.post("/mcp", json=LISTING, headers={**MCP, **stale}),
    ):
        assert too_many(refused)["detail"].startswith(
            "failed authentications per minute with this key: 10;"
        )
    assert host.get("/v1/stats", headers=AS_AGENT).status_code == 200
    assert host.post("/mcp", json=LISTING, headers={**MCP, **AS_ADMIN}).status_code == 200
    problem(host.get("/v1/stats", headers={"Authorization": "Bearer a-new-typo-0123456"}), 401)


def test_refused_keys_are_not_held_when_failures_are_unlimited(app: Serve) -> None:
    client = app(api_keys=KEYS, sign_in_failures_per_minute="0")
    wrong = {"Authorization": "Bearer not-a-key-0123456789"}
    for _ in range(30):
        problem(client.get("/v1/stats", headers=wrong), 401)
    assert client.get("/v1/stats", headers=AS_AGENT).status_code == 200
