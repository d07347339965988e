"""Requests and checks shared by the tests that drive the REST API."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
from litestar import Litestar
from litestar.testing import TestClient
from litestar.testing.transport import TestClientTransport

LOCAL = "http://127.0.0.1:8080"
"""Where test clients address the app: without keys it answers loopback hosts only."""
ADMIN = "admin-key-0123456789"
AGENT_ONE = "agent-one-0123456789"
KEYS = f"{ADMIN}=admin;{AGENT_ONE}=agent:one"


def bearer(key: str) -> dict[str, str]:
    """The headers of a request made with ``key``."""
    return {"Authorization": f"Bearer {key}"}


AS_ADMIN = bearer(ADMIN)
AS_AGENT = bearer(AGENT_ONE)


def fingerprint(key: str) -> str:
    """How a key without a name is named: in entry histories, and in the limits it is over."""
    return "key:" + hashlib.sha256(key.encode()).hexdigest()[:8]


class FromAddress(TestClientTransport[TestClient[Litestar]]):
    """Litestar's test transport, for a client at ``address`` (it says "testclient")."""

    def __init__(self, client: TestClient[Litestar], address: str) -> None:
        super().__init__(client=client)
        self.address = address

    def parse_request(self, request: httpx.Request) -> dict[str, Any]:
        scope = super().parse_request(request)
        scope["client"] = (self.address, 50000)
        return scope


def at_address(
    client: TestClient[Litestar], address: str, *, follow_redirects: bool = False
) -> httpx.Client:
    """A client of ``client``'s running app that connects from ``address``."""
    # Litestar's test transport has httpx's handle_request but no BaseTransport base.
    transport: Any = FromAddress(client, address)
    return httpx.Client(base_url=LOCAL, transport=transport, follow_redirects=follow_redirects)


def problem(response: httpx.Response, status: int) -> dict[str, Any]:
    """The problem-details body of a response that must have ``status``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["title"] and body["detail"]
    return body


def write(
    client: TestClient[Litestar],
    *events: dict[str, Any],
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    response = client.post("/v1/events", json={"events": list(events)}, headers=headers)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def search(
    client: TestClient[Litestar],
    query: str,
    headers: dict[str, str] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    response = client.post("/v1/search", json={"query": query, **fields}, headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def ids(found: dict[str, Any]) -> list[str]:
    return [r["id"] for r in found["results"]]


def retrieve(client: TestClient[Litestar], question: str, **fields: Any) -> dict[str, Any]:
    response = client.post("/v1/retrieve", json={"question": question, **fields})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


DECISIONS: list[dict[str, Any]] = [
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
