"""Requests and checks shared by the tests that drive the REST API."""

from __future__ import annotations

from litestar.testing import TestClient

LOCAL = "http://127.0.0.1:8080"
"""Where test clients address the app: without keys it answers loopback hosts only."""
ADMIN = "admin-key-0123456789"
AGENT_ONE = "agent-one-0123456789"
KEYS = f"{ADMIN}=admin;{AGENT_ONE}=agent:one"
AS_ADMIN = {"Authorization": f"Bearer {ADMIN}"}
AS_AGENT = {"Authorization": f"Bearer {AGENT_ONE}"}


def problem(response, status: int) -> dict:
    """The problem-details body of a response that must have ``status``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status and body["title"] and body["detail"]
    return body


def write(client: TestClient, *events: dict, headers=None) -> dict:
    response = client.post("/v1/events", json={"events": list(events)}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


def search(client: TestClient, query: str, headers=None, **fields) -> dict:
    response = client.post("/v1/search", json={"query": query, **fields}, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def ids(found: dict) -> list[str]:
    return [r["id"] for r in found["results"]]


def retrieve(client: TestClient, question: str, **fields) -> dict:
    response = client.post("/v1/retrieve", json={"question": question, **fields})
    assert response.status_code == 200, response.text
    return response.json()


DECISIONS = [
    {
        "id": "db",
        "tier": "A",
        "text": "We decided to use PostgreSQL for the billing service: it needs transactions.",
        "type": "decision",
        "confidence": 0.9,
    },
    {
        "id": "chat",
        "tier": "C",
        "text": "Should the search team try Elasticsearch or stay on Tantivy?",
        "type": "position",
    },
    {"id": "log1", "tier": "E", "text": "deploy billing-api v2.3.1 to staging: ok"},
    {
        "id": "how",
        "tier": "A",
        "kind": "pattern",
        "text": "When choosing a datastore, weigh transactional guarantees before speed.",
        "variants": ["payments: require ACID", "analytics: prefer a columnar store"],
    },
]
