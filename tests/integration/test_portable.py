"""A namespace exported, imported and erased on the real stores: SQLite files with an
embedded Chroma and Tantivy, and a cluster of two replicas on Postgres and a Chroma
server. Erased means gone from the bytes: no file of a data directory and no table of
Postgres holds the marker word written into every field the namespace had."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import psycopg
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.bootstrap import Runtime
from service.settings import Settings
from tests.http import LOCAL, ids, search, write

MARKER = "zqxjvorpal"
"""A word nothing else holds (its stem is itself), written into every field."""
NDJSON = {"Content-Type": "application/x-ndjson"}

Replica = tuple[Runtime, TestClient[Litestar]]


@pytest.fixture
def start(
    tmp_path: Path, open_stores: Callable[[Settings], Runtime]
) -> Iterator[Callable[..., Replica]]:
    """Starts a service on a data directory of its own, with more settings if given."""
    with ExitStack() as clients:

        def started(name: str, **settings: Any) -> Replica:
            runtime = open_stores(
                Settings().replace(
                    data_dir=tmp_path / name,
                    jobs="off",
                    collection_roots=str(tmp_path),
                    replica_name=name,
                    **settings,
                )
            )
            client = TestClient(create_app(services=runtime.services), base_url=LOCAL)
            return runtime, clients.enter_context(client)

        yield started


def fill(client: TestClient[Litestar], namespace: str, word: str, folder: Path) -> None:
    """Entries of every tier with ``word`` in every field, 60 more in separate commits (so
    the keyword index holds several segments), a collection of a file holding it, and a
    retrieve with feedback naming it."""
    ns = {"namespace": namespace}
    write(
        client,
        {
            "id": f"{word}-a",
            "tier": "A",
            "text": f"The {word} decision: we use PostgreSQL for billing.",
            "speaker": f"{word}bot",
            "tags": [word],
            "metadata": {"note": word},
            "thread": word,
            **ns,
        },
        {"id": "c", "tier": "C", "text": f"Stand-up: {word} migration today", "thread": word, **ns},
        {"id": "e", "tier": "E", "text": f"GET /{word} returned 503", "chain_type": word, **ns},
    )
    for batch in range(3):
        write(
            client,
            *(
                {"id": f"n{batch}-{n}", "tier": "E", "text": f"log {batch} {n} {word}", **ns}
                for n in range(20)
            ),
        )
    notes = folder / f"notes-{namespace}"
    notes.mkdir()
    (notes / "a.md").write_text(f"# {word}\n\nThe {word} runbook.\n")
    added = client.post(
        "/v1/collections", json={"name": f"notes-{namespace}", "path": str(notes), **ns}
    )
    assert added.status_code == 201, added.text
    asked = client.post("/v1/retrieve", json={"question": f"what about {word}?", **ns})
    assert asked.status_code == 200, asked.text
    rated = client.post(
        "/v1/feedback",
        json={"interaction_id": asked.json()["interaction_id"], "rating": "down", "comment": word},
    )
    assert rated.status_code == 201, rated.text


def files_holding(folder: Path, word: str) -> list[str]:
    needle = word.encode()
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and needle in p.read_bytes().lower()
    )


def tables_holding(url: str, word: str) -> list[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        names = [
            name
            for (name,) in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            )
        ]
        return [
            name
            for name in names
            if conn.execute(
                f'SELECT count(*) FROM "{name}" AS t WHERE lower(t::text) LIKE %s',
                (f"%{word}%",),
            ).fetchone()
            != (0,)
        ]


def erase(client: TestClient[Litestar], namespace: str) -> dict[str, Any]:
    response = client.delete(f"/v1/namespaces/{namespace}", params={"confirm": namespace})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def export(client: TestClient[Litestar], namespace: str, vectors: bool = True) -> list[str]:
    response = client.get(
        f"/v1/namespaces/{namespace}/export", params={"vectors": str(vectors).lower()}
    )
    assert response.status_code == 200, response.text
    return response.text.splitlines()


def import_(client: TestClient[Litestar], namespace: str, lines: list[str]) -> dict[str, Any]:
    response = client.post(
        f"/v1/namespaces/{namespace}/import",
        content=("\n".join(lines) + "\n").encode(),
        headers=NDJSON,
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_an_erased_namespace_is_in_no_file_of_the_data_directory(
    start: Callable[..., Replica], tmp_path: Path
) -> None:
    runtime, client = start("solo")
    fill(client, "gone", MARKER, tmp_path)
    fill(client, "kept", "plover", tmp_path)
    data = tmp_path / "solo"
    assert files_holding(data, MARKER)  # the check sees what is there
    record = erase(client, "gone")
    counts = record["counts"]
    assert counts["entries"] == 64 and counts["collections"] == 1 and counts["files"] == 1
    assert counts["interactions"] == 1 and counts["feedback"] == 1 and counts["history"] >= 64
    assert files_holding(data, MARKER) == []
    assert MARKER not in json.dumps(record)
    with sqlite3.connect(data / "chroma" / "chroma.sqlite3") as chroma:
        segments = {row[0] for row in chroma.execute("SELECT id FROM segments")}
    folders = {p.name for p in (data / "chroma").iterdir() if p.is_dir()}
    assert folders <= segments  # no vector segment of a dropped collection is left
    # The other namespace is whole and found, by keywords and by vectors.
    assert ids(search(client, "plover decision", namespace="kept"))[0] == "plover-a"
    found = search(client, "which database for billing", namespace="kept", mode="vector")
    assert ids(found)[0] == "plover-a"
    assert search(client, MARKER, namespace="gone")["results"] == []
    assert runtime.memory.repair.indexes_match_ledger()
    listed = client.get("/v1/admin/erasures").json()["erasures"]
    assert [e["namespace"] for e in listed] == ["gone"]
    # The namespace can be used again.
    write(client, {"id": "again", "tier": "A", "text": "fresh start", "namespace": "gone"})
    assert ids(search(client, "fresh start", namespace="gone")) == ["again"]


def test_a_namespace_moves_from_sqlite_to_a_postgres_cluster_unchanged(
    start: Callable[..., Replica], tmp_path: Path, postgres_url: str, chroma_server: str
) -> None:
    namespace = f"m{uuid.uuid4().hex[:10]}"  # the Chroma server outlives the test
    _, solo = start("solo")
    fill(solo, namespace, "heron", tmp_path)
    first = export(solo, namespace)
    cluster = {"database_url": postgres_url, "chroma_url": chroma_server}
    _, one = start("one", **cluster)
    two_services, two = start("two", **cluster)
    report = import_(one, namespace, first)
    assert report["imported"]["entries"] == 64 and report["imported"]["embedded"] == 0
    assert report["imported"]["interactions"] == 1 and report["imported"]["files"] == 1
    assert two_services.follower is not None
    two_services.follower.catch_up()
    second = export(two, namespace)
    assert json.loads(second[0]) | {"exported_at": 0} == json.loads(first[0]) | {"exported_at": 0}
    assert second[1:] == first[1:]
    assert ids(search(two, "heron decision", namespace=namespace))[0] == "heron-a"
    again = import_(one, namespace, first)["imported"]
    assert (again["entries"], again["unchanged"], again["interactions"]) == (0, 64, 0)


def test_an_import_without_vectors_embeds_tiers_a_and_c(
    start: Callable[..., Replica], tmp_path: Path
) -> None:
    _, client = start("solo")
    fill(client, "src", "egret", tmp_path)
    lines = export(client, "src", vectors=False)
    entries = [line for line in lines if '"record":"entry"' in line]
    file = [lines[0], *entries, json.dumps({"record": "end", "lines": 1 + len(entries)})]
    report = import_(client, "copy", file)["imported"]
    assert report["entries"] == 64 and report["embedded"] == 3  # of tiers A and C
    found = search(client, "which database for billing", namespace="copy", mode="vector")
    assert ids(found)[0] == "egret-a"
    copied = [line for line in export(client, "copy", vectors=False) if '"entry"' in line]
    assert copied == entries


def test_an_erasure_on_one_replica_leaves_no_trace_on_any(
    start: Callable[..., Replica], tmp_path: Path, postgres_url: str, chroma_server: str
) -> None:
    cluster = {"database_url": postgres_url, "chroma_url": chroma_server}
    one_services, one = start("one", **cluster)
    two_services, two = start("two", **cluster)
    gone = f"g{uuid.uuid4().hex[:10]}"
    fill(one, gone, MARKER, tmp_path)
    fill(one, f"k{uuid.uuid4().hex[:10]}", "plover", tmp_path)
    assert two_services.follower is not None and one_services.follower is not None
    two_services.follower.catch_up()
    assert ids(search(two, f"{MARKER} decision", namespace=gone, mode="bm25"))
    assert files_holding(tmp_path / "two", MARKER) and tables_holding(postgres_url, MARKER)
    erase(one, gone)
    two_services.follower.catch_up()  # the erasure reaches it through the change log
    one_services.follower.catch_up()
    assert search(two, MARKER, namespace=gone, mode="bm25")["results"] == []
    assert files_holding(tmp_path / "one", MARKER) == []
    assert files_holding(tmp_path / "two", MARKER) == []
    assert tables_holding(postgres_url, MARKER) == []
    assert search(two, "plover", namespace=gone)["results"] == []
