"""The REST API over real stores and the real model, in process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.lifespan import open_services
from service.settings import Settings

ADMIN = "admin-key-0123456789"
AGENT_ONE = "agent-one-0123456789"


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def client_for(settings: Settings, embedder, clock) -> Iterator[TestClient]:
    resources = open_services(settings, embedder=embedder, clock=clock)
    try:
        with TestClient(create_app(services=resources)) as client:
            yield client
    finally:
        resources.close()


@pytest.fixture
def client(tmp_path: Path, chroma_url: str, embedder, clock) -> Iterator[TestClient]:
    settings = Settings().replace(
        data_dir=tmp_path, chroma_url=chroma_url, max_batch=5, max_body_bytes=100_000
    )
    yield from client_for(settings, embedder, clock)


@pytest.fixture
def keyed(tmp_path: Path, embedder, clock) -> Iterator[TestClient]:
    keys = f"{ADMIN}=admin;{AGENT_ONE}=agent:one"
    yield from client_for(Settings().replace(data_dir=tmp_path, api_keys=keys), embedder, clock)


def write(client: TestClient, *events: dict, headers=None) -> dict:
    response = client.post("/v1/events", json={"events": list(events)}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


def search(client: TestClient, query: str, **fields) -> dict:
    response = client.post("/v1/search", json={"query": query, **fields})
    assert response.status_code == 200, response.text
    return response.json()


def ids(found: dict) -> list[str]:
    return [r["id"] for r in found["results"]]


def test_write_then_search_every_mode(client: TestClient) -> None:
    written = write(
        client,
        {
            "id": "db",
            "tier": "A",
            "text": "We decided to use PostgreSQL for billing.",
            "speaker": "alice",
            "tags": ["db"],
        },
        {"id": "chat", "tier": "C", "text": "Maybe we should cache sessions in Redis?"},
        {
            "id": "log",
            "tier": "E",
            "text": "pg_dump finished: 3 tables exported",
            "chain_type": "backup",
        },
    )
    assert written == {"ids": ["db", "chat", "log"], "embedded": 2, "indexed": 3}
    hybrid = search(client, "which database did we choose?", explain=True)
    assert hybrid["mode"] == "hybrid"
    assert ids(hybrid)[0] == "db"
    top = hybrid["results"][0]
    assert 0 < top["score"] <= 1
    assert set(top["explain"]) <= {"bm25", "vector", "tier"}
    assert top["explain"]["vector"]["rank"] == 1 and top["explain"]["tier"]["score"] == 1.0
    assert all(0 <= r["score"] <= 1 for r in hybrid["results"])
    assert ids(search(client, "tables exported", tiers=["E"])) == ["log"]
    assert search(client, "tables", tiers=["E"])["mode"] == "bm25"
    assert "log" not in ids(search(client, "tables exported", mode="vector"))
    assert ids(search(client, "session caching", mode="vector", tiers=["C"])) == ["chat"]


def test_reposting_an_id_replaces_the_entry(client: TestClient) -> None:
    write(client, {"id": "x", "tier": "A", "text": "use tabs"})
    write(client, {"id": "x", "tier": "E", "text": "use spaces"})
    entry = client.get("/v1/entries/x").json()
    assert (entry["tier"], entry["text"]) == ("E", "use spaces")
    assert ids(search(client, "tabs", mode="bm25")) == []
    assert ids(search(client, "use", mode="vector")) == []


def test_get_and_delete(client: TestClient) -> None:
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


def test_expired_c_entries_leave_search(client: TestClient, clock: Clock) -> None:
    write(client, {"id": "c", "tier": "C", "text": "flaky test discussion", "ttl_days": 1})
    assert ids(search(client, "flaky test")) == ["c"]
    clock.now += 2 * 86_400
    assert search(client, "flaky test")["results"] == []
    assert search(client, "flaky test", mode="vector")["results"] == []


def test_namespaces_isolate(client: TestClient) -> None:
    write(client, {"id": "1", "tier": "A", "text": "secret plan", "namespace": "red"})
    write(client, {"id": "1", "tier": "A", "text": "secret plan", "namespace": "blue"})
    found = search(client, "secret plan", namespace="red")
    assert [(r["id"], r["namespace"]) for r in found["results"]] == [("1", "red")]
    assert search(client, "secret plan")["results"] == []


def test_long_text_is_chunked_and_snippet_is_the_matching_part(client: TestClient) -> None:
    filler = " ".join(f"word{n}" for n in range(400))
    write(client, {"id": "long", "tier": "A", "text": f"{filler} kubernetes autoscaling decision"})
    hit = search(client, "kubernetes autoscaling")["results"][0]
    assert hit["id"] == "long"
    assert "kubernetes" in hit["snippet"] and len(hit["snippet"]) < 400


def problem(response, status: int) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status and body["title"] and body["detail"]
    return body


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
def test_a_bad_event_rejects_the_whole_batch(client: TestClient, event: dict, field: str) -> None:
    good = {"id": "good", "tier": "A", "text": "fine"}
    body = problem(client.post("/v1/events", json={"events": [good, event]}), 422)
    assert field in [e["field"] for e in body["errors"]]
    assert client.get("/v1/entries/good").status_code == 404


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
def test_bad_search_names_the_field(client: TestClient, request_body: dict, field: str) -> None:
    body = problem(client.post("/v1/search", json=request_body), 422)
    assert field in [e["field"] for e in body["errors"]]


def test_malformed_and_oversized_requests(client: TestClient) -> None:
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


def test_api_keys_roles_and_namespace_scopes(keyed: TestClient) -> None:
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


def test_health_and_openapi(client: TestClient) -> None:
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["model"] == "all-MiniLM-L6-v2"
    spec = client.get("/schema/openapi.json").json()
    assert {"/v1/events", "/v1/search", "/v1/entries/{entry_id}", "/health"} <= set(spec["paths"])


def test_tier_weights_and_c_recency_shape_the_score(client: TestClient, clock: Clock) -> None:
    week_ago = "2027-01-08T08:00:00Z"  # the test clock reads 2027-01-15T08:00:00Z
    write(
        client,
        {"id": "a", "tier": "A", "text": "canary deploys for the payments service"},
        {
            "id": "c",
            "tier": "C",
            "text": "canary deploys for the payments service",
            "timestamp": week_ago,
            "ttl_days": 30,
        },
        {"id": "e", "tier": "E", "text": "canary deploys for the payments service"},
    )
    found = search(client, "canary deploys payments", explain=True, mode="bm25")
    assert ids(found) == ["a", "e", "c"]
    by_id = {r["id"]: r for r in found["results"]}
    assert by_id["e"]["explain"]["tier"]["score"] == pytest.approx(1 / 1.5, abs=1e-6)
    assert by_id["c"]["explain"]["recency"]["score"] == pytest.approx(0.1353, abs=1e-3)
