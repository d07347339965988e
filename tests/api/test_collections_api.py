"""Collections and their documents over the Files port: rules, scopes and bounds."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.application import Services
from tests.api.conftest import serve
from tests.fakes import FakeFiles
from tests.http import AS_ADMIN, AS_AGENT, KEYS, problem

ROOT = "/srv/notes"


@pytest.fixture
def files() -> FakeFiles:
    return FakeFiles(
        {
            ROOT: {
                "adr/012-bus.md": b"# Event bus\n\nWe adopt NATS.\n",
                "people.md": b"Alice owns billing.\n\nBob owns mobile.\n",
                "skip.txt": b"not markdown",
            }
        }
    )


@pytest.fixture
def client(services_for: Callable[..., Services]) -> Iterator[TestClient[Litestar]]:
    yield from serve(services_for(api_keys=KEYS))


def add(client: TestClient[Litestar], namespace: str = "one") -> dict[str, Any]:
    body = {"name": "notes", "path": ROOT, "namespace": namespace}
    response = client.post("/v1/collections", json=body, headers=AS_ADMIN)
    assert response.status_code == 201, response.text
    added: dict[str, Any] = response.json()
    return added


def test_a_folder_is_indexed_and_its_documents_read_by_line(client: TestClient[Litestar]) -> None:
    scanned = add(client)
    assert (scanned["added"], scanned["collection"]["files"]) == (2, 2)
    doc = client.get(
        "/v1/documents", params={"path": "notes/people.md", "from": 3}, headers=AS_AGENT
    ).json()
    assert (doc["first_line"], doc["total_lines"], doc["text"]) == (3, 3, "3| Bob owns mobile.")
    found = client.post(
        "/v1/documents/batch", json={"pattern": "notes/adr/*.md"}, headers=AS_AGENT
    ).json()
    assert [d["path"] for d in found["documents"]] == ["notes/adr/012-bus.md"]


def test_bad_collection_requests_name_the_field(client: TestClient[Litestar]) -> None:
    relative = client.post("/v1/collections", json={"name": "x", "path": "notes"}, headers=AS_ADMIN)
    assert problem(relative, 422)["errors"][0]["field"] == "path"
    missing = client.post(
        "/v1/collections", json={"name": "x", "path": "/srv/nope"}, headers=AS_ADMIN
    )
    assert problem(missing, 422)["errors"][0]["field"] == "path"
    problem(
        client.post("/v1/collections", json={"name": "a b", "path": ROOT}, headers=AS_ADMIN), 422
    )
    add(client)
    problem(
        client.post("/v1/collections", json={"name": "notes", "path": ROOT}, headers=AS_ADMIN), 409
    )
    problem(client.get("/v1/documents", params={"path": "nope/x.md"}, headers=AS_ADMIN), 404)
    problem(client.get("/v1/documents", params={"path": "nocollection"}, headers=AS_ADMIN), 422)
    problem(
        client.get("/v1/documents", params={"path": "notes/a.md", "from": 0}, headers=AS_ADMIN), 422
    )


def test_agents_see_only_their_namespaces_collections_and_cannot_change_them(
    client: TestClient[Litestar],
) -> None:
    add(client, namespace="two")
    assert client.get("/v1/collections", headers=AS_AGENT).json()["collections"] == []
    problem(client.get("/v1/collections/notes", headers=AS_AGENT), 404)
    problem(client.get("/v1/documents", params={"path": "notes/people.md"}, headers=AS_AGENT), 404)
    problem(client.delete("/v1/collections/notes", headers=AS_AGENT), 403)
    problem(client.post("/v1/collections", json={"name": "x", "path": ROOT}, headers=AS_AGENT), 403)


def test_paths_never_leave_the_collection_root(client: TestClient[Litestar]) -> None:
    add(client)
    for path in ["notes/../secret.md", "notes//etc/passwd", "notes/a\\..\\b.md"]:
        response = client.get("/v1/documents", params={"path": path}, headers=AS_ADMIN)
        assert response.status_code in (403, 404), (path, response.text)
