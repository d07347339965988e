"""The events, entries and search endpoints: validation, limits, keys and scopes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from tests.api.conftest import serve
from tests.http import ADMIN, AGENT_ONE, problem, search, write


def test_get_and_delete(client: TestClient[Litestar]) -> None:
    write(
        client,
        {
            "id": "x",
            "tier": "C",
            "text": "standup notes",
            "namespace": "team",
            "timestamp": "2027-01-15T10:00:00+01:00",
            "ttl_days": 2,
            "metadata": {"ticket": "T-1"},
        },
    )
    entry = client.get("/v1/entries/x", params={"namespace": "team"}).json()
    assert entry["timestamp"] == "2027-01-15T09:00:00Z"
    assert entry["expires_at"] == "2027-01-17T09:00:00Z"
    assert entry["metadata"] == {"ticket": "T-1"}
    assert client.get("/v1/entries/x").status_code == 404
    assert client.delete("/v1/entries/x", params={"namespace": "team"}).status_code == 200
    assert client.get("/v1/entries/x", params={"namespace": "team"}).status_code == 404
    assert client.delete("/v1/entries/x", params={"namespace": "team"}).status_code == 404
    assert search(client, "standup", namespace="team")["results"] == []


def test_namespaces_isolate(client: TestClient[Litestar]) -> None:
    write(client, {"id": "1", "tier": "A", "text": "secret plan", "namespace": "red"})
    write(client, {"id": "1", "tier": "A", "text": "secret plan", "namespace": "blue"})
    found = search(client, "secret plan", namespace="red")
    assert [(r["id"], r["namespace"]) for r in found["results"]] == [("1", "red")]
    assert search(client, "secret plan")["results"] == []


@pytest.mark.parametrize(
    ("event", "field"),
    [
        ({"tier": "A", "text": ""}, "events[1].text"),
        ({"tier": "A", "text": "   "}, "events[1].text"),
        ({"tier": "B", "text": "x"}, "events[1].tier"),
        ({"tier": "A", "text": "x", "timestamp": "last week"}, "events[1].timestamp"),
        ({"tier": "A", "text": "x", "ttl_days": 3}, "events[1].ttl_days"),
        ({"tier": "A", "text": "x", "namespace": "a b"}, "events[1].namespace"),
        ({"tier": "A", "text": "x", "metadata": {"k": [1]}}, "events[1].metadata[...]"),
        ({"tier": "A", "text": "x", "colour": "red"}, "events[1]"),
        ({"tier": "A"}, "events[1]"),
        ({"tier": "A", "text": "x", "confidence": 1.5}, "events[1].confidence"),
        ({"tier": "A", "text": "x", "kind": "idea"}, "events[1].kind"),
        ({"tier": "A", "text": "x", "variants": ["y"]}, "events[1].variants"),
    ],
)
def test_a_bad_event_rejects_the_whole_batch(
    client: TestClient[Litestar], event: dict[str, Any], field: str
) -> None:
    good = {"id": "good", "tier": "A", "text": "fine"}
    body = problem(client.post("/v1/events", json={"events": [good, event]}), 422)
    assert field in [e["field"] for e in body["errors"]]
    assert client.get("/v1/entries/good").status_code == 404


def test_an_event_of_too_many_chunks_rejects_the_whole_batch(
    runtime_for: Callable[..., Runtime],
) -> None:
    small = runtime_for(chunk_words="10", chunk_overlap="2", max_chunks="3")
    words = [f"w{n}" for n in range(27)]  # 3 chunks hold 26 words
    for client in serve(small):
        good = {"id": "good", "tier": "A", "text": " ".join(words[:26])}
        long = {"id": "long", "tier": "A", "text": " ".join(words)}
        body = problem(client.post("/v1/events", json={"events": [good, long]}), 422)
        assert [e["field"] for e in body["errors"]] == ["events[1].text"]
        assert client.get("/v1/entries/good").status_code == 404
        write(client, good)
        assert client.get("/v1/entries/good").status_code == 200
        assert small.stores.ledger.count() == {"A": 1}


@pytest.mark.parametrize(
    ("request_body", "field"),
    [
        ({"query": "x", "limit": 0}, "limit"),
        ({"query": "x", "limit": 101}, "limit"),
        ({"query": ""}, "query"),
        ({"query": "x", "tiers": ["Z"]}, "tiers[0]"),
        ({"query": "x", "mode": "magic"}, "mode"),
        ({"query": "x", "since": "soon"}, "since"),
        ({"query": "x", "tiers": ["E"], "mode": "vector"}, "tiers"),
        ({"query": "x", "min_score": 2}, "min_score"),
        ({"query": "x", "kind": "idea"}, "kind"),
    ],
)
def test_bad_search_names_the_field(
    client: TestClient[Litestar], request_body: dict[str, Any], field: str
) -> None:
    body = problem(client.post("/v1/search", json=request_body), 422)
    assert field in [e["field"] for e in body["errors"]]


@pytest.mark.parametrize(
    ("event", "field"),
    [
        ({"tier": "A", "timestamp": "0001-01-01T00:00:00+23:00"}, "events[0].timestamp"),
        ({"tier": "E", "timestamp": "9999-12-31T23:59:59-23:00"}, "events[0].timestamp"),
        ({"tier": "C", "timestamp": "9999-12-30T00:00:00Z"}, "events[0].timestamp"),
        ({"tier": "C", "timestamp": "9990-01-01T00:00Z", "ttl_days": 36500}, "events[0].ttl_days"),
    ],
)
def test_a_moment_beyond_the_calendar_is_refused_not_stored(
    client: TestClient[Litestar], event: dict[str, Any], field: str
) -> None:
    """Stored, such an entry could not be shown: every search finding it would fail."""
    body = problem(client.post("/v1/events", json={"events": [{"text": "far", **event}]}), 422)
    assert [e["field"] for e in body["errors"]] == [field]
    assert search(client, "far", include_archived=True)["results"] == []


@pytest.mark.parametrize("since", ["", "0001-01-01T00:00:00+23:00"])
def test_a_search_bound_must_be_a_moment(client: TestClient[Litestar], since: str) -> None:
    body = problem(client.post("/v1/search", json={"query": "x", "since": since}), 422)
    assert [e["field"] for e in body["errors"]] == ["since"]


def test_malformed_and_oversized_requests(client: TestClient[Litestar]) -> None:
    problem(
        client.post(
            "/v1/events", content=b'{"events": [', headers={"content-type": "application/json"}
        ),
        400,
    )
    too_many = [{"tier": "E", "text": "x"}] * 6
    assert "events" in problem(client.post("/v1/events", json={"events": too_many}), 413)["detail"]
    huge = [{"tier": "E", "text": "x" * 60_000}] * 2
    problem(client.post("/v1/events", json={"events": huge}), 413)
    assert client.post("/v1/search", json={"query": "x"}).json()["results"] == []


def test_api_keys_roles_and_namespace_scopes(keyed: TestClient[Litestar]) -> None:
    event = {"events": [{"tier": "A", "text": "roadmap", "namespace": "one"}]}
    problem(keyed.post("/v1/events", json=event), 401)
    problem(keyed.post("/v1/events", json=event, headers={"Authorization": "Bearer nope"}), 401)
    agent = {"Authorization": f"Bearer {AGENT_ONE}"}
    admin = {"Authorization": f"Bearer {ADMIN}"}
    assert keyed.post("/v1/events", json=event, headers=agent).status_code == 201
    other = {"events": [{"tier": "A", "text": "roadmap", "namespace": "two"}]}
    problem(keyed.post("/v1/events", json=other, headers=agent), 403)
    assert keyed.post("/v1/events", json=other, headers=admin).status_code == 201
    # The agent's only namespace is its default, for writes and searches; another is refused.
    unnamed = {"events": [{"id": "n", "tier": "E", "text": "no namespace given"}]}
    assert keyed.post("/v1/events", json=unnamed, headers=agent).status_code == 201
    assert keyed.get("/v1/entries/n", headers=agent).json()["namespace"] == "one"
    found = keyed.post("/v1/search", json={"query": "roadmap"}, headers=agent).json()
    assert [r["namespace"] for r in found["results"]] == ["one"]
    problem(
        keyed.post("/v1/search", json={"query": "roadmap", "namespace": "two"}, headers=agent), 403
    )
    assert keyed.get("/health").status_code == 200
    assert keyed.get("/schema/openapi.json").status_code == 200


def test_health_and_openapi(client: TestClient[Litestar]) -> None:
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["model"] == "fake-bag-of-words"
    spec = client.get("/schema/openapi.json").json()
    assert {"/v1/events", "/v1/search", "/v1/entries/{entry_id}", "/health"} <= set(spec["paths"])


def test_health_names_the_replica_and_its_place_among_others(
    runtime_for: Callable[..., Runtime],
) -> None:
    runtime = runtime_for(replica_name="api-7")
    for client in serve(runtime):
        replica = client.get("/health").json()["replica"]
        # One process on files of its own: nothing to follow, and no schedule started here.
        assert replica == {
            "name": "api-7",
            "mode": "embedded",
            "leads_jobs": False,
            "lag_seconds": 0.0,
            "changes_behind": 0,
        }
        runtime.scheduler.start()
        try:
            assert client.get("/health").json()["replica"]["leads_jobs"] is True
        finally:
            runtime.scheduler.shutdown()


def test_health_answers_while_the_ledger_is_away(
    runtime_for: Callable[..., Runtime], monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = runtime_for()

    def away() -> dict[str, int]:
        raise ConnectionError("database server away")

    monkeypatch.setattr(runtime.stores.ledger, "count", away)
    for client in serve(runtime):
        health = client.get("/health").json()
        assert (health["status"], health["stores"]["ledger"]) == ("degraded", "unreachable")
        assert "ledger unreachable: database server away" in health["degraded"]


def test_hits_carry_a_bounded_text_and_the_entry_the_whole(
    runtime_for: Callable[..., Runtime],
) -> None:
    long = "kubernetes autoscaling decision " + "filler " * 400
    for client in serve(runtime_for(max_hit_chars="50")):
        write(
            client,
            {"id": "long", "tier": "E", "text": long},
            {"id": "short", "tier": "E", "text": "kubernetes"},
        )
        hits = {h["id"]: h for h in search(client, "kubernetes", mode="bm25")["results"]}
        assert len(hits["long"]["text"]) == 50 and hits["long"]["truncated"] is True
        assert "truncated" not in hits["short"]
        assert client.get("/v1/entries/long").json()["text"] == long
