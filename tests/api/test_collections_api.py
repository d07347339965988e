"""Collections and their documents over the Files port: rules, scopes and bounds."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from tests.apps import serving
from tests.fakes import FakeCatalog, FakeFiles
from tests.http import AS_ADMIN, AS_AGENT, KEYS, problem

Client = Callable[..., TestClient[Litestar]]

ROOT = "/srv/notes"


@pytest.fixture
def files() -> FakeFiles:
    return FakeFiles(
        {
            ROOT: {
                "adr/012-bus.md": b"# Event bus\n\nWe adopt NATS.\n",
                "people.md": b"Alice owns billing.\n\nBob owns mobile.\n",
                "skip.txt": b"not markdown",
                ".env": b"API_TOKEN=hunter2\n",
                ".git/config": b"[remote]\n  url = https://hunter2@example.com\n",
            }
        }
    )


def add(keyed: TestClient[Litestar], namespace: str = "one") -> dict[str, Any]:
    body = {"name": "notes", "path": ROOT, "namespace": namespace}
    response = keyed.post("/v1/collections", json=body, headers=AS_ADMIN)
    assert response.status_code == 201, response.text
    added: dict[str, Any] = response.json()
    return added


def test_a_folder_is_indexed_and_its_documents_read_by_line(keyed: TestClient[Litestar]) -> None:
    scanned = add(keyed)
    assert (scanned["added"], scanned["collection"]["files"]) == (2, 2)
    doc = keyed.get(
        "/v1/documents", params={"path": "notes/people.md", "from": 3}, headers=AS_AGENT
    ).json()
    assert (doc["first_line"], doc["total_lines"], doc["text"]) == (3, 3, "3| Bob owns mobile.")
    found = keyed.post(
        "/v1/documents/batch", json={"pattern": "notes/adr/*.md"}, headers=AS_AGENT
    ).json()
    assert [d["path"] for d in found["documents"]] == ["notes/adr/012-bus.md"]


def test_bad_collection_requests_name_the_field(keyed: TestClient[Litestar]) -> None:
    relative = keyed.post("/v1/collections", json={"name": "x", "path": "notes"}, headers=AS_ADMIN)
    assert problem(relative, 422)["errors"][0]["field"] == "path"
    missing = keyed.post(
        "/v1/collections", json={"name": "x", "path": "/srv/nope"}, headers=AS_ADMIN
    )
    assert problem(missing, 422)["errors"][0]["field"] == "path"
    problem(
        keyed.post("/v1/collections", json={"name": "a b", "path": ROOT}, headers=AS_ADMIN), 422
    )
    add(keyed)
    again = {"name": "notes", "path": ROOT, "namespace": "one"}
    problem(keyed.post("/v1/collections", json=again, headers=AS_ADMIN), 409)
    problem(keyed.get("/v1/documents", params={"path": "nope/x.md"}, headers=AS_ADMIN), 404)
    problem(keyed.get("/v1/documents", params={"path": "nocollection"}, headers=AS_ADMIN), 422)
    problem(
        keyed.get("/v1/documents", params={"path": "notes/a.md", "from": 0}, headers=AS_ADMIN), 422
    )


def test_agents_see_only_their_namespaces_collections_and_cannot_change_them(
    keyed: TestClient[Litestar],
) -> None:
    add(keyed, namespace="two")
    assert keyed.get("/v1/collections", headers=AS_AGENT).json()["collections"] == []
    problem(keyed.get("/v1/collections/notes", headers=AS_AGENT), 404)
    problem(keyed.get("/v1/documents", params={"path": "notes/people.md"}, headers=AS_AGENT), 404)
    problem(keyed.delete("/v1/collections/notes", headers=AS_AGENT), 403)
    problem(keyed.post("/v1/collections", json={"name": "x", "path": ROOT}, headers=AS_AGENT), 403)


def test_paths_never_leave_the_collection_root(keyed: TestClient[Litestar]) -> None:
    add(keyed)
    for path in ["notes/../secret.md", "notes//etc/passwd", "notes/a\\..\\b.md"]:
        response = keyed.get("/v1/documents", params={"path": path}, headers=AS_ADMIN)
        assert response.status_code in (403, 404), (path, response.text)


def batch(keyed: TestClient[Litestar], pattern: str, **fields: object) -> dict[str, Any]:
    response = keyed.post(
        "/v1/documents/batch", json={"pattern": pattern, **fields}, headers=AS_AGENT
    )
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def paths(found: dict[str, Any]) -> list[str]:
    return [d["path"] for d in found["documents"]]


@pytest.fixture
def client_for(runtime_for: Callable[..., Runtime]) -> Iterator[Client]:
    """Clients with the test keys and other ``STRATA_*`` settings given as keywords."""
    with ExitStack() as stack:
        yield lambda **env: stack.enter_context(serving(runtime_for(api_keys=KEYS, **env)))


@pytest.mark.parametrize("path", ["notes/.env", "notes/.git/config", "notes/skip.txt"])
def test_only_indexed_documents_are_served(keyed: TestClient[Litestar], path: str) -> None:
    """Files under the root that no scan indexed (outside the mask) are as unknown as
    missing ones, alone or in a list."""
    add(keyed)
    problem(keyed.get("/v1/documents", params={"path": path}, headers=AS_AGENT), 404)
    listed = batch(keyed, f"{path}, notes/people.md")
    assert paths(listed) == ["notes/people.md"]
    assert listed["skipped"] == [{"path": path, "reason": "not an indexed document"}]
    assert "hunter2" not in str(listed)


def test_a_batch_reads_each_document_once(keyed: TestClient[Litestar]) -> None:
    add(keyed)
    named = "notes/people.md, notes/people.md, strata://notes/people.md, notes/./people.md"
    assert paths(batch(keyed, named)) == ["notes/people.md"]
    assert paths(batch(keyed, ",".join(["notes/people.md"] * 600))) == ["notes/people.md"]


def test_a_batch_stops_at_the_document_bound(client_for: Client) -> None:
    keyed = client_for(max_documents="1")
    add(keyed)
    found = batch(keyed, "notes/**/*.md")
    assert paths(found) == ["notes/adr/012-bus.md"]
    assert found["skipped"] == [{"path": "notes/people.md", "reason": "over the 1-document bound"}]


def test_a_batch_stops_at_the_byte_bound(client_for: Client) -> None:
    first = len(b"# Event bus\n\nWe adopt NATS.\n")
    keyed = client_for(max_documents_bytes=str(first + 10))
    add(keyed)
    found = batch(keyed, "notes/adr/012-bus.md, notes/people.md, notes/adr/012-bus.md")
    assert paths(found) == ["notes/adr/012-bus.md"]
    assert found["skipped"] == [
        {"path": "notes/people.md", "reason": f"over the {first + 10}-byte total bound"}
    ]


def test_documents_are_served_as_indexed_without_the_disk(
    keyed: TestClient[Litestar], files: FakeFiles
) -> None:
    """What a scan indexed is what any replica serves: the catalog keeps the text, so a
    file changed or gone on this server's disk reads as it was indexed, bounds and all."""
    add(keyed)
    files.roots[ROOT]["adr/012-bus.md"] = b"# Event bus\n\nWe moved to Kafka.\n"
    del files.roots[ROOT]["people.md"]
    doc = keyed.get(
        "/v1/documents",
        params={"path": "notes/adr/012-bus.md", "from": 3, "lines": 1},
        headers=AS_AGENT,
    ).json()
    assert (doc["title"], doc["text"], doc["total_lines"]) == ("Event bus", "3| We adopt NATS.", 3)
    found = batch(keyed, "notes/**/*.md", max_bytes=30)
    assert paths(found) == ["notes/adr/012-bus.md"]
    size = len(b"Alice owns billing.\n\nBob owns mobile.\n")
    assert found["skipped"] == [
        {"path": "notes/people.md", "reason": f"{size} bytes, over max_bytes"}
    ]


def test_a_file_indexed_before_texts_were_kept_is_read_from_disk_until_a_scan_keeps_it(
    keyed: TestClient[Litestar], files: FakeFiles, keyed_runtime: Runtime
) -> None:
    add(keyed)
    catalog = keyed_runtime.stores.catalog
    assert isinstance(catalog, FakeCatalog)
    notes = next(iter(catalog.collections))
    del catalog.texts[notes, "people.md"]  # as an upgraded catalog holds it
    files.roots[ROOT]["people.md"] = b"Alice owns billing.\n\nCarol owns mobile.\n"
    read = keyed.get("/v1/documents", params={"path": "notes/people.md"}, headers=AS_AGENT)
    assert read.json()["text"] == "1| Alice owns billing.\n2| \n3| Carol owns mobile."
    files.roots[ROOT]["people.md"] = b"Alice owns billing.\n\nBob owns mobile.\n"
    scan = keyed.post("/v1/collections/notes/update", headers=AS_ADMIN).json()
    assert (scan["unchanged"], scan["chunks"]) == (2, 0)
    assert catalog.texts[notes, "people.md"] == "Alice owns billing.\n\nBob owns mobile.\n"


def test_a_scan_needs_the_folder_on_the_server_that_runs_it(
    keyed: TestClient[Litestar], files: FakeFiles
) -> None:
    """In a cluster, another replica may not have the folder: its scan is refused, and
    drops nothing, rather than finding every file gone."""
    add(keyed)
    files.roots = {}
    refused = problem(keyed.post("/v1/collections/notes/update", headers=AS_ADMIN), 409)
    assert ROOT in refused["detail"] and "not on this server" in refused["detail"]
    listed = keyed.get("/v1/collections/notes", headers=AS_AGENT).json()
    assert listed["files"] == 2
    assert batch(keyed, "notes/people.md")["documents"][0]["text"].startswith("1| Alice")


@pytest.mark.parametrize(
    ("pattern", "found"),
    [
        ("notes/**/*.md", ["notes/adr/012-bus.md", "notes/people.md"]),
        ("notes/*.md", ["notes/people.md"]),
        ("*/*.md", ["notes/people.md"]),
        ("notes/**", ["notes/adr/012-bus.md", "notes/people.md"]),
        ("notes/adr/**/*.md", ["notes/adr/012-bus.md"]),
    ],
)
def test_batch_patterns_match_as_globs(
    keyed: TestClient[Litestar], pattern: str, found: list[str]
) -> None:
    """``**/`` is zero or more folders and ``*`` stays within one, as in shells."""
    add(keyed)
    assert paths(batch(keyed, pattern)) == found


def test_a_mask_reads_globstar_as_zero_or_more_folders(
    keyed: TestClient[Litestar], files: FakeFiles
) -> None:
    files.roots[ROOT]["adr/old/011-db.md"] = b"# Database\n"
    body = {"name": "decisions", "path": ROOT, "namespace": "one", "mask": "adr/**"}
    scanned = keyed.post("/v1/collections", json=body, headers=AS_ADMIN).json()
    assert scanned["added"] == 2
    assert paths(batch(keyed, "decisions/**")) == [
        "decisions/adr/012-bus.md",
        "decisions/adr/old/011-db.md",
    ]


def test_agents_cannot_rescan(keyed: TestClient[Litestar]) -> None:
    add(keyed)
    problem(keyed.post("/v1/collections/notes/update", headers=AS_AGENT), 403)
    assert keyed.post("/v1/collections/notes/update", headers=AS_ADMIN).status_code == 200
