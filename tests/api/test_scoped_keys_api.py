"""What an admin key scoped to some namespaces learns of the others: nothing. Its erasure
records, its collection names and the ids of the interactions it imports are its own. On
the real stores (SQLite, Chroma, Tantivy) with the deterministic embedder of the tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.lifespan import open_runtime
from service.settings import Settings
from tests.fakes import FakeEmbedder
from tests.http import ADMIN, AS_ADMIN, LOCAL, bearer, problem, write

ALICE = "alice-admin-0123456789"
BOB = "bob-admin-0123456789"
KEYS = f"{ADMIN}=admin;{ALICE}=admin:alice;{BOB}=admin:bob"
AS_ALICE = bearer(ALICE)
AS_BOB = bearer(BOB)
NDJSON = {"Content-Type": "application/x-ndjson"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient[Litestar]]:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# Tea\n\nAlice likes tea.\n")
    settings = Settings().replace(
        data_dir=tmp_path / "data", jobs="off", collection_roots=str(tmp_path), api_keys=KEYS
    )
    runtime = open_runtime(settings, embedder=FakeEmbedder())
    try:
        with TestClient(create_app(services=runtime.services), base_url=LOCAL) as client:
            yield client
    finally:
        runtime.close()


def erase(client: TestClient[Litestar], namespace: str) -> None:
    done = client.delete(
        f"/v1/namespaces/{namespace}", params={"confirm": namespace}, headers=AS_ADMIN
    )
    assert done.status_code == 200, done.text


def test_a_scoped_admin_lists_the_erasures_of_its_namespaces_only(
    client: TestClient[Litestar],
) -> None:
    for namespace in ("alice", "bob", "carol"):
        erase(client, namespace)

    def listed(headers: dict[str, str]) -> list[str]:
        answered = client.get("/v1/admin/erasures", headers=headers)
        assert answered.status_code == 200, answered.text
        return [e["namespace"] for e in answered.json()["erasures"]]

    assert listed(AS_ALICE) == ["alice"]
    assert listed(AS_BOB) == ["bob"]
    assert listed(AS_ADMIN) == ["carol", "bob", "alice"]


def add(client: TestClient[Litestar], name: str, folder: Path, headers: dict[str, str]) -> Any:
    return client.post("/v1/collections", json={"name": name, "path": str(folder)}, headers=headers)


def test_collection_names_are_per_namespace_and_tell_nothing_of_others(
    client: TestClient[Litestar], tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    assert add(client, "bobdocs", notes, AS_BOB).status_code == 201
    mine = add(client, "bobdocs", notes, AS_ALICE)  # as if bob had none
    assert mine.status_code == 201, mine.text
    assert mine.json()["collection"]["namespace"] == "alice"
    again = problem(add(client, "bobdocs", notes, AS_ALICE), 409)
    assert "'alice'" in again["detail"] and "bob" not in again["detail"].replace("bobdocs", "")
    for key, namespace in ((AS_ALICE, "alice"), (AS_BOB, "bob")):
        shown = client.get("/v1/collections/bobdocs", headers=key).json()
        assert shown["namespace"] == namespace
        listed = client.get("/v1/collections", headers=key).json()["collections"]
        assert [c["namespace"] for c in listed] == [namespace]
        document = client.get("/v1/documents", params={"path": "bobdocs/a.md"}, headers=key)
        assert document.status_code == 200, document.text
    problem(client.get("/v1/collections/bobdocs?namespace=bob", headers=AS_ALICE), 403)
    # A key of both namespaces names the one it means.
    both = problem(client.get("/v1/collections/bobdocs", headers=AS_ADMIN), 409)
    assert "'alice', 'bob'" in both["detail"]
    shown = client.get("/v1/collections/bobdocs", params={"namespace": "bob"}, headers=AS_ADMIN)
    assert shown.json()["namespace"] == "bob"
    renamed = client.patch(
        "/v1/collections/bobdocs", params={"namespace": "bob"}, json={"name": "b"}, headers=AS_ADMIN
    )
    assert renamed.status_code == 200, renamed.text
    assert client.get("/v1/collections/bobdocs", headers=AS_ADMIN).json()["namespace"] == "alice"
    # Renaming to a name another namespace holds is renaming to a free name.
    back = client.patch("/v1/collections/b", json={"name": "bobdocs"}, headers=AS_BOB)
    assert back.status_code == 200, back.text


def exported(client: TestClient[Litestar], namespace: str) -> list[dict[str, Any]]:
    answered = client.get(f"/v1/namespaces/{namespace}/export", headers=AS_ADMIN)
    assert answered.status_code == 200, answered.text
    return [json.loads(line) for line in answered.text.splitlines()]


def imported(client: TestClient[Litestar], namespace: str, lines: list[dict[str, Any]]) -> Any:
    text = "".join(json.dumps(line) + "\n" for line in lines)
    return client.post(
        f"/v1/namespaces/{namespace}/import",
        content=text.encode(),
        headers={**AS_BOB, **NDJSON},
    )


def test_an_import_answers_alike_whether_another_namespace_holds_an_interaction_id(
    client: TestClient[Litestar],
) -> None:
    for namespace, key in (("alice", AS_ALICE), ("bob", AS_BOB)):
        write(client, {"tier": "A", "text": f"{namespace} likes tea"}, headers=key)
    asked = client.post("/v1/retrieve", json={"question": "who likes tea?"}, headers=AS_ALICE)
    theirs = asked.json()["interaction_id"]
    client.post("/v1/retrieve", json={"question": "what does bob like?"}, headers=AS_BOB)
    original = exported(client, "bob")
    assert [line["record"] for line in original].count("interaction") == 1
    before = exported(client, "alice")
    erase(client, "bob")

    def with_id(interaction_id: str) -> list[dict[str, Any]]:
        """Bob's file with its interaction's id set to ``interaction_id``."""
        lines = [dict(line) for line in original]
        for line in lines:
            if line["record"] == "interaction":
                line["id"] = interaction_id
        return lines

    unknown = imported(client, "bob", with_id("never-asked-anywhere"))
    assert unknown.status_code == 200, unknown.text
    erase(client, "bob")
    clashing = imported(client, "bob", with_id(theirs))
    assert clashing.status_code == 200, clashing.text

    assert clashing.json() == unknown.json()
    assert clashing.json()["imported"]["interactions"] == 1
    assert exported(client, "alice")[1:] == before[1:]  # alice's interaction is as it was
    rated = client.post(
        "/v1/feedback", json={"interaction_id": theirs, "rating": "up"}, headers=AS_ALICE
    )
    assert rated.status_code in (200, 201), rated.text
