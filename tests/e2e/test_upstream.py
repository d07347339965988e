"""Recall from an upstream between real server processes: a strata asking another strata,
and a strata asking a scripted upstream that answers, answers too late, fails with 503 and
stops listening; over REST and over MCP at /mcp."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from service.testing.scripted_upstream import ScriptedUpstream
from tests.e2e.test_mcp import call, over_http
from tests.e2e.test_server import Server

CENTRAL_KEY = "central-team-key-0123"
BILLING = "We chose PostgreSQL for the billing service: it needs transactions."
COOLDOWN = 2.0
KB = [{"id": "kb-7", "text": "Invoices are archived after 7 years.", "score": 0.8}]


@pytest.fixture(scope="module")
def central(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The upstream: a strata holding the team's memory, behind an agent key."""
    running = Server(
        tmp_path_factory.mktemp("central") / "data",
        {"STRATA_API_KEYS": f"{CENTRAL_KEY}=agent:team"},
    )
    event = {"id": "pg-1", "tier": "A", "text": BILLING, "speaker": "ana", "type": "decision"}
    written = httpx.post(
        f"{running.url}/v1/events",
        json={"events": [event]},
        headers={"Authorization": f"Bearer {CENTRAL_KEY}"},
    )
    assert written.status_code == 201, written.text
    yield running
    running.stop()


@pytest.fixture(scope="module")
def local(central: Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(
        tmp_path_factory.mktemp("local") / "data",
        {
            "STRATA_UPSTREAM_URL": central.url,
            "STRATA_UPSTREAM_KEY": CENTRAL_KEY,
            "STRATA_UPSTREAM_NAME": "central",
            "STRATA_UPSTREAM_NAMESPACES": '{"default": "team"}',
        },
    )
    yield running
    running.stop()


@pytest.fixture(scope="module")
def scripted() -> Iterator[ScriptedUpstream]:
    server = ScriptedUpstream(KB)
    yield server
    server.close()


@pytest.fixture(scope="module")
def asking_scripted(
    scripted: ScriptedUpstream, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    running = Server(
        tmp_path_factory.mktemp("flaky") / "data",
        {
            "STRATA_UPSTREAM_URL": scripted.url,
            "STRATA_UPSTREAM_NAME": "kb",
            "STRATA_UPSTREAM_TIMEOUT": "0.5",
            "STRATA_UPSTREAM_RETRIES": "1",
            "STRATA_UPSTREAM_BACKOFF_MS": "10",
            "STRATA_UPSTREAM_FAILURES": "2",
            "STRATA_UPSTREAM_COOLDOWN": str(COOLDOWN),
        },
    )
    yield running
    running.stop()


def search(server: Server, query: str, **fields: Any) -> dict[str, Any]:
    response = httpx.post(f"{server.url}/v1/search", json={"query": query, **fields}, timeout=30)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def breaker(server: Server) -> dict[str, Any]:
    state: dict[str, Any] = httpx.get(f"{server.url}/health").json()["upstream"]["breaker"]
    return state


def test_a_strata_recalls_from_another_over_rest_and_mcp(local: Server) -> None:
    found = search(local, "which database did we choose for billing?")
    hit = found["results"][0]
    assert (hit["source"], hit["id"], hit["text"]) == ("upstream", "pg-1", BILLING)
    assert hit["upstream"] == {"name": "central", "namespace": "team", "id": "pg-1"}
    assert hit["namespace"] == "default"
    assert found["upstream"]["outcome"] == "answered" and found["degraded"] == []
    assert httpx.get(f"{local.url}/v1/entries/pg-1").status_code == 404, "never stored here"

    answer = httpx.post(
        f"{local.url}/v1/retrieve", json={"question": "Which database for billing?"}, timeout=30
    ).json()
    assert answer["entries"][0]["source"] == "upstream"
    assert answer["entries"][0]["upstream"]["id"] == "pg-1"
    assert answer["strong_match"] is False

    async def over_mcp() -> None:
        async with over_http(local.url) as client:
            tool = await call(client, "search", query="billing database choice")
            assert tool["results"][0]["source"] == "upstream"
            assert tool["results"][0]["upstream"]["name"] == "central"
            assert tool["upstream"]["outcome"] == "answered"

    anyio.run(over_mcp)
    health = httpx.get(f"{local.url}/health").json()
    assert health["upstream"]["name"] == "central" and health["upstream"]["answered"] >= 3
    assert health["engines"]["upstream"]["state"] == "ok"


def test_local_hits_all_below_the_relevance_floor_ask_the_upstream(local: Server) -> None:
    lunch = {"id": "lunch", "tier": "A", "text": "Lunch is at noon on Fridays."}
    written = httpx.post(f"{local.url}/v1/events", json={"events": [lunch]})
    assert written.status_code == 201, written.text
    question = "which database did we choose for billing?"
    found = search(local, question)
    assert [(r["source"], r["id"]) for r in found["results"]] == [("upstream", "pg-1")]
    assert found["dropped"] == 1 and found["upstream"]["outcome"] == "answered"
    unfloored = search(local, question, min_score=0)
    assert [r["id"] for r in unfloored["results"]] == ["lunch"] and unfloored["upstream"] is None


def test_a_local_hit_never_asks_upstream(
    asking_scripted: Server, scripted: ScriptedUpstream
) -> None:
    scripted.behaviour = "answer"
    written = httpx.post(
        f"{asking_scripted.url}/v1/events",
        json={"events": [{"id": "here", "tier": "A", "text": "Invoices are kept for 7 years."}]},
    )
    assert written.status_code == 201
    before = scripted.count
    found = search(asking_scripted, "how long are invoices kept?")
    assert [r["id"] for r in found["results"]] == ["here"] and found["upstream"] is None
    assert scripted.count == before, "the upstream got no request"
    found = search(asking_scripted, "invoices archived", namespace="empty")
    assert found["results"][0]["source"] == "upstream" and scripted.count == before + 1


def test_slow_failing_and_refusing_upstreams_degrade_and_the_breaker_opens_and_closes(
    asking_scripted: Server, scripted: ScriptedUpstream
) -> None:
    scripted.behaviour, scripted.delay = "slow", 5.0
    slow = search(asking_scripted, "invoices", namespace="empty")
    assert slow["results"] == [] and slow["upstream"]["outcome"] == "failed"
    assert "no answer within" in slow["upstream"]["error"]
    assert slow["took_ms"] < 4000, "the search gave up at its budget, not at the answer"
    assert breaker(asking_scripted)["state"] == "closed"

    scripted.behaviour = "fail"
    before = scripted.count
    failed = search(asking_scripted, "invoices", namespace="empty")
    assert failed["upstream"]["attempts"] == 2 and scripted.count == before + 2
    assert "503" in failed["degraded"][0]
    assert breaker(asking_scripted)["state"] == "open"

    before = scripted.count
    skipped = search(asking_scripted, "invoices", namespace="empty")
    assert skipped["upstream"]["outcome"] == "circuit_open"
    assert scripted.count == before, "an open breaker does not ask"

    async def over_mcp() -> None:
        async with over_http(asking_scripted.url) as client:
            tool = await call(client, "search", query="invoices", namespace="empty")
            assert tool["results"] == [] and tool["upstream"]["outcome"] == "circuit_open"

    anyio.run(over_mcp)
    time.sleep(COOLDOWN)  # a real process: its breaker runs on the real clock
    assert breaker(asking_scripted)["state"] == "half_open"
    scripted.behaviour = "answer"
    trial = search(asking_scripted, "invoices", namespace="empty")
    assert trial["results"][0]["id"] == "kb-7" and trial["upstream"]["outcome"] == "answered"
    assert breaker(asking_scripted)["state"] == "closed"

    scripted.close()
    refused = search(asking_scripted, "invoices", namespace="empty")
    assert refused["upstream"]["outcome"] == "failed" and refused["upstream"]["attempts"] == 2
    assert "unreachable" in refused["upstream"]["error"]
