"""Recall from an upstream over the REST API, on fakes: asked only when this memory finds
nothing, its hits marked and never stored unless configured, its failures degrading the
answer (never failing it), and its breaker in ``/health``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from schemas.vocabulary import RECALL_HEADER
from service.bootstrap import Runtime
from service.domain.recall import UpstreamError
from service.settings import Settings
from tests.api.conftest import fake_stores, numbered, serve
from tests.fakes import FakeClock, FakeFiles, FakeUpstream, make_entry
from tests.http import AS_AGENT, KEYS, retrieve, search, write

BILLING = "We chose PostgreSQL for the billing service."


@pytest.fixture
def upstream() -> FakeUpstream:
    found = FakeUpstream("central")
    for ns in ("default", "team", "one"):
        found.add(make_entry("pg-1", BILLING, namespace=ns, type="decision", speaker="ana"))
    return found


def runtime(clock: FakeClock, files: FakeFiles, upstream: FakeUpstream, **env: str) -> Runtime:
    settings = Settings.from_env(
        {
            "STRATA_UPSTREAM_URL": "http://central.test",
            **{f"STRATA_{k.upper()}": v for k, v in env.items()},
        }
    )
    return numbered(settings, fake_stores(clock, files, upstream=upstream), clock)


@pytest.fixture
def served(
    clock: FakeClock, files: FakeFiles, upstream: FakeUpstream
) -> Iterator[TestClient[Litestar]]:
    yield from serve(runtime(clock, files, upstream))


def test_a_search_that_finds_something_never_asks_upstream(
    served: TestClient[Litestar], upstream: FakeUpstream
) -> None:
    write(served, {"id": "local", "tier": "A", "text": "Billing runs on PostgreSQL."})
    found = search(served, "billing database")
    assert [r["id"] for r in found["results"]] == ["local"]
    assert found["upstream"] is None
    assert "source" not in found["results"][0]
    assert upstream.calls == []


def test_local_hits_all_below_the_relevance_floor_ask_upstream(
    served: TestClient[Litestar], upstream: FakeUpstream
) -> None:
    write(served, {"id": "lunch", "tier": "A", "text": "Lunch is at noon on Fridays."})
    found = search(served, "which database for billing?")
    assert [(r["id"], r["source"]) for r in found["results"]] == [("pg-1", "upstream")]
    assert found["dropped"] == 1 and found["upstream"]["outcome"] == "answered"
    assert len(upstream.calls) == 1
    unfloored = search(served, "which database for billing?", min_score=0)
    assert [r["id"] for r in unfloored["results"]] == ["lunch"] and unfloored["upstream"] is None
    assert len(upstream.calls) == 1
    answer = retrieve(served, "Which database did we pick for billing?")
    assert [e["id"] for e in answer["entries"]] == ["pg-1"] and len(upstream.calls) == 2


def test_a_search_that_finds_nothing_returns_the_upstream_hits_marked_and_stores_none(
    served: TestClient[Litestar], upstream: FakeUpstream
) -> None:
    found = search(served, "which database for billing?", limit=3)
    (hit,) = found["results"]
    assert hit["source"] == "upstream"
    assert hit["upstream"] == {"name": "central", "namespace": "default", "id": "pg-1"}
    assert (hit["id"], hit["text"], hit["namespace"]) == ("pg-1", BILLING, "default")
    assert hit["speaker"] == "ana" and 0 < hit["score"] <= 1
    asked = found["upstream"]
    assert (asked["name"], asked["outcome"], asked["results"], asked["attempts"]) == (
        "central",
        "answered",
        1,
        1,
    )
    assert found["degraded"] == []
    assert upstream.calls[0][:3] == ("default", "which database for billing?", 3)
    assert served.get("/v1/entries/pg-1").status_code == 404
    assert served.get("/v1/stats").json()["totals"]["entries"] == 0


def test_a_search_that_is_itself_a_recall_never_asks_upstream_in_turn(
    served: TestClient[Litestar], upstream: FakeUpstream
) -> None:
    asked = served.post(
        "/v1/search", json={"query": "which database for billing?"}, headers={RECALL_HEADER: "1"}
    )
    assert asked.status_code == 200
    assert asked.json()["results"] == [] and asked.json()["upstream"] is None
    assert upstream.calls == []


def test_namespaces_map_as_configured(
    clock: FakeClock, files: FakeFiles, upstream: FakeUpstream
) -> None:
    mapping = '{"alice": "team", "scratch": null}'
    for client in serve(runtime(clock, files, upstream, upstream_namespaces=mapping)):
        hit = search(client, "billing", namespace="alice")["results"][0]
        assert hit["namespace"] == "alice" and hit["upstream"]["namespace"] == "team"
        quiet = search(client, "billing", namespace="scratch")
        assert quiet["results"] == [] and quiet["upstream"] is None
    assert [c[0] for c in upstream.calls] == ["team"]


def test_an_agent_key_asks_upstream_for_its_own_namespace_only(
    clock: FakeClock, files: FakeFiles, upstream: FakeUpstream
) -> None:
    for client in serve(runtime(clock, files, upstream, api_keys=KEYS)):
        found = search(client, "billing", headers=AS_AGENT)
        assert found["results"][0]["upstream"]["namespace"] == "one"
        refused = client.post(
            "/v1/search", json={"query": "billing", "namespace": "two"}, headers=AS_AGENT
        )
        assert refused.status_code == 403
    assert [c[0] for c in upstream.calls] == ["one"]


def test_kept_upstream_hits_are_found_here_next_time(
    clock: FakeClock, files: FakeFiles, upstream: FakeUpstream
) -> None:
    for client in serve(runtime(clock, files, upstream, upstream_store="on")):
        first = search(client, "billing database")
        assert first["upstream"]["kept"] == 1
        kept = client.get("/v1/entries/central:pg-1").json()
        assert kept["text"] == BILLING and kept["type"] == "decision"
        assert kept["metadata"] == {
            "upstream": "central",
            "upstream_namespace": "default",
            "upstream_id": "pg-1",
        }
        again = search(client, "billing database")
        assert [r["id"] for r in again["results"]] == ["central:pg-1"]
        assert again["upstream"] is None
    assert len(upstream.calls) == 1


def test_a_failing_upstream_degrades_the_answer_then_its_breaker_opens_and_recovers(
    clock: FakeClock, files: FakeFiles, upstream: FakeUpstream
) -> None:
    upstream.failures = [UpstreamError("answered 503 Service Unavailable", retryable=True)] * 9
    env = {"upstream_backoff_ms": "0", "upstream_cooldown": "30"}
    for client in serve(runtime(clock, files, upstream, **env)):
        for _ in range(3):
            failed = search(client, "billing")
            assert failed["results"] == [] and failed["upstream"]["outcome"] == "failed"
            assert failed["upstream"]["attempts"] == 3
            assert failed["degraded"] == [
                "upstream central failed after 3 attempts: answered 503 Service Unavailable"
            ]
        assert len(upstream.calls) == 9
        health = client.get("/health").json()
        assert health["status"] == "degraded"
        assert health["engines"]["upstream"]["state"] == "unavailable"
        breaker = health["upstream"]["breaker"]
        assert (breaker["state"], breaker["failures"], breaker["trips"]) == ("open", 3, 1)
        assert breaker["retry_at"] == breaker["opened_at"] + 30
        assert health["upstream"]["name"] == "central"

        skipped = search(client, "billing")
        assert skipped["upstream"]["outcome"] == "circuit_open"
        assert "circuit breaker is open" in skipped["degraded"][0]
        assert len(upstream.calls) == 9, "an open breaker does not call"

        clock.advance(30)
        assert client.get("/health").json()["upstream"]["breaker"]["state"] == "half_open"
        trial = search(client, "billing")
        assert trial["upstream"]["outcome"] == "answered" and trial["results"]
        health = client.get("/health").json()
        assert health["upstream"]["breaker"]["state"] == "closed"
        assert health["engines"]["upstream"]["state"] == "ok"
        assert health["status"] == "ok"
        assert (health["upstream"]["asked"], health["upstream"]["circuit_open"]) == (4, 1)


def test_health_says_off_without_an_upstream(client: TestClient[Litestar]) -> None:
    health = client.get("/health").json()
    assert health["upstream"] is None
    assert health["engines"]["upstream"]["state"] == "off"


def test_a_retrieve_that_finds_nothing_lists_upstream_entries_without_a_strong_match(
    served: TestClient[Litestar], upstream: FakeUpstream
) -> None:
    answer = retrieve(served, "Which database did we pick for billing?")
    (entry,) = answer["entries"]
    assert entry["source"] == "upstream" and entry["upstream"]["id"] == "pg-1"
    assert entry["parts"]["type"] == 1.0  # a decision, as the upstream says
    assert answer["strong_match"] is False and answer["answer_confidence"] == 0.0
    assert answer["upstream"]["outcome"] == "answered"


def test_a_weak_retrieve_asks_upstream_only_when_configured(
    clock: FakeClock, files: FakeFiles, upstream: FakeUpstream
) -> None:
    local: dict[str, Any] = {"id": "note", "tier": "A", "text": "Lunch is at noon on Fridays."}
    # No relevance floor: the unrelated note is the weak answer (with it, no answer at all).
    for client in serve(runtime(clock, files, upstream, min_score="0")):
        write(client, local)
        answer = retrieve(client, "Which database did we pick for billing?")
        assert not answer["strong_match"] and answer["upstream"] is None
    assert upstream.calls == []
    for client in serve(runtime(clock, files, upstream, upstream_on_weak="on", min_score="0")):
        write(client, local)
        answer = retrieve(client, "Which database did we pick for billing?")
        assert [e.get("source", "local") for e in answer["entries"]] == ["local", "upstream"]
    assert len(upstream.calls) == 1
