"""What an entry may hold, on the real stores, whichever way it is written: REST, MCP, an
import, the domain's own writes (collections, digests, promotions) and a scripted upstream on
loopback whose hits are kept (STRATA_UPSTREAM_STORE=on). Nothing out of bounds is stored,
retrieve's scores stay in [0, 1], and every namespace's export imports again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from mcp import Client

from schemas import wire
from service.application.auth import OPEN
from service.bootstrap import Runtime
from service.domain.entries import Entry
from service.domain.memory.bounds import breaches
from service.errors import InvalidInput
from service.mcp import LocalGateway, build_server
from service.settings import Settings
from service.stores.embedder import SentenceTransformerEmbedder
from service.testing.scripted_upstream import ScriptedUpstream
from tests.apps import served_runtime
from tests.http import retrieve, search

MAX_CHUNKS = 4
QUESTION = "how long are invoices kept?"
TEXT = "Invoices are archived after seven years."
LONG = " ".join(["invoice"] * 1000)
"""A text of 9 chunks of 150 words: past the bound of 4."""
HOSTILE = {
    "id": "h1",
    "text": TEXT,
    "score": 0.9,
    "confidence": 1e308,
    "speaker": "s" * 20_000,
    "tags": [f"t{n}" for n in range(1000)],
    "metadata": {"blob": "x" * 200_000, "source": "wiki"},
    "type": "decision",
}
CASES: dict[str, dict[str, Any]] = {
    "speaker": {"speaker": "s" * 20_000},
    "tags": {"tags": [f"t{n}" for n in range(1000)]},
    "metadata": {"metadata": {"blob": "x" * 200_000}},
    "confidence": {"confidence": 1e308},
    "text": {"text": LONG},
}
"""An entry out of bounds in one field, by that field."""
MCP_FIELDS = {"speaker", "tags", "text"}
"""The fields the ``remember`` tool takes."""
NDJSON = {"Content-Type": "application/x-ndjson"}

Served = tuple[Runtime, TestClient[Litestar]]


@pytest.fixture(scope="module")
def upstream() -> Iterator[ScriptedUpstream]:
    server = ScriptedUpstream()
    yield server
    server.close()


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data directory, and the folder collections may read."""
    return tmp_path_factory.mktemp("bounds")


@pytest.fixture(scope="module")
def served(
    root: Path, embedder: SentenceTransformerEmbedder, upstream: ScriptedUpstream
) -> Iterator[Served]:
    settings = Settings().replace(
        data_dir=root / "data",
        collection_roots=str(root),
        jobs="off",
        max_chunks=MAX_CHUNKS,
        upstream_url=upstream.url,
        upstream_name="kb",
        upstream_store="on",
    )
    with served_runtime(settings, embedder) as served:
        yield served


def stored(runtime: Runtime, namespace: str) -> list[Entry]:
    return [a.stored.entry for a in runtime.stores.ledger.entry_page(namespace, "", 100)]


def entry_lines(export: bytes) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in export.splitlines()]
    return [line for line in lines if line["record"] == "entry"]


def assert_round_trips(client: TestClient[Litestar], namespace: str) -> dict[str, Any]:
    """The namespace's export imported under another name, as it was."""
    exported = client.get(f"/v1/namespaces/{namespace}/export")
    assert exported.status_code == 200
    copy = f"{namespace}-copy"
    imported = client.post(
        f"/v1/namespaces/{copy}/import", content=exported.content, headers=NDJSON
    )
    assert imported.status_code == 200, imported.text
    again = client.get(f"/v1/namespaces/{copy}/export")
    assert entry_lines(again.content) == entry_lines(exported.content)
    body: dict[str, Any] = imported.json()
    return body


def test_a_hostile_upstream_hit_is_kept_within_bounds_and_its_namespace_round_trips(
    served: Served, upstream: ScriptedUpstream
) -> None:
    runtime, client = served
    upstream.results = [HOSTILE, {"id": "long", "text": LONG, "score": 0.5}]
    found = search(client, QUESTION, namespace="hostile")
    asked = found["upstream"]
    assert (asked["results"], asked["kept"], asked["refused"]) == (2, 1, 1)
    assert [d for d in found["degraded"] if "'long' not kept" in d] == [
        "upstream result 'long' not kept: events[0].text: too long: 9 chunks of 150 words, "
        f"at most {MAX_CHUNKS} per entry"
    ]
    assert all(0 <= hit["score"] <= 1 for hit in found["results"])

    kept = client.get("/v1/entries/kb:h1", params={"namespace": "hostile"}).json()
    assert kept["confidence"] == 1.0
    assert kept["speaker"] == "s" * 200
    assert kept["tags"] == [f"t{n}" for n in range(64)]
    assert kept["metadata"] == {
        "upstream": "kb",
        "upstream_namespace": "hostile",
        "upstream_id": "h1",
        "source": "wiki",
    }
    (entry,) = stored(runtime, "hostile")
    assert breaches(entry, runtime.services.settings.chunking) == []

    answer = retrieve(client, QUESTION, namespace="hostile")
    assert [e["id"] for e in answer["entries"]] == ["kb:h1"]
    assert all(0 <= e["score"] <= 1 for e in answer["entries"])
    assert answer["entries"][0]["parts"]["confidence"] == 1.0

    assert assert_round_trips(client, "hostile")["imported"]["entries"] == 1


def test_a_collections_chunks_are_within_bounds_and_a_file_that_cannot_be_is_skipped(
    served: Served, root: Path
) -> None:
    runtime, client = served
    notes = root / "notes"
    notes.mkdir()
    (notes / "long-heading.md").write_text(f"# {'Invoices-' * 2_000}\n\n{TEXT}\n")
    (notes / "one-word.md").write_text("x" * 1_000_001)
    body = {"name": "notes", "path": str(notes), "namespace": "notes"}
    scan = client.post("/v1/collections", json=body)
    assert scan.status_code == 201, scan.text
    skipped = scan.json()["skipped"]
    assert [s["path"] for s in skipped] == ["notes/one-word.md"]
    assert "text: over 1000000 characters" in skipped[0]["reason"]
    (chunk,) = stored(runtime, "notes")
    assert len(chunk.metadata["title"]) == 10_000
    assert breaches(chunk, runtime.services.settings.chunking) == []
    # Its line reads back as an export's (the collection's lines are the namespace's own).
    exported = client.get("/v1/namespaces/notes/export").content.splitlines()
    decoded = [msgspec.json.decode(line, type=wire.ExportLine) for line in exported]
    assert [type(line).__name__ for line in decoded].count("EntryLine") == 1


def write_rest(served: Served, namespace: str, fields: dict[str, Any]) -> str:
    _, client = served
    event = {"id": "x", "tier": "A", "text": TEXT, "namespace": namespace, **fields}
    response = client.post("/v1/events", json={"events": [event]})
    assert response.status_code == 422, response.text
    return response.text


def write_mcp(served: Served, namespace: str, fields: dict[str, Any]) -> str:
    runtime, _ = served
    arguments = {"text": TEXT, "namespace": namespace, **fields}

    async def call() -> str:
        async with Client(build_server(lambda _: LocalGateway(runtime.services, OPEN))) as client:
            result = await client.call_tool("remember", arguments)
        assert result.is_error
        return "".join(getattr(c, "text", "") for c in result.content)

    return anyio.run(call)


def write_import(served: Served, namespace: str, fields: dict[str, Any]) -> str:
    _, client = served
    header = {
        "record": "header",
        "format": wire.FORMAT,
        "version": wire.FORMAT_VERSION,
        "strata": "0.1.0",
        "namespace": "elsewhere",
        "exported_at": 1_800_000_000,
        "vectors": False,
        "model": None,
        "dimension": None,
        "settings": {"chunk_words": 150, "chunk_overlap": 30, "max_chunks": MAX_CHUNKS},
        "counts": {"entries": 1, "collections": 0, "files": 0, "interactions": 0, "feedback": 0},
    }
    entry = {"record": "entry", "id": "x", "tier": "A", "text": TEXT, "timestamp": 1_800_000_000}
    lines = [header, {**entry, **fields}, {"record": "end", "lines": 2}]
    body = "".join(json.dumps(line) + "\n" for line in lines)
    response = client.post(f"/v1/namespaces/{namespace}/import", content=body, headers=NDJSON)
    assert response.status_code == 422, response.text
    return response.text


def write_memory(served: Served, namespace: str, fields: dict[str, Any]) -> str:
    """The domain's own writes: a collection's chunks, a digest, a promotion."""
    runtime, _ = served
    values = {"text": TEXT, **fields, "tags": tuple(fields.get("tags", ()))}
    entry = Entry(id="x", namespace=namespace, tier="A", timestamp=1.8e9, **values)
    with pytest.raises(InvalidInput) as refused:
        runtime.memory.writer.write([entry])
    return refused.value.detail


PATHS = {"rest": write_rest, "mcp": write_mcp, "import": write_import, "memory": write_memory}


@pytest.mark.parametrize(
    ("path", "field"),
    [
        *((p, f) for p in PATHS for f in CASES if p != "mcp" or f in MCP_FIELDS),
        *(("upstream", f) for f in CASES),
    ],
)
def test_every_write_path_keeps_out_what_is_out_of_bounds(
    served: Served, upstream: ScriptedUpstream, path: str, field: str
) -> None:
    """Every path refuses the entry naming the field, and stores nothing; the upstream's
    hits are fitted where a field can be (the text cannot: that hit is refused)."""
    runtime, client = served
    namespace = f"{path}-{field}"
    if path == "upstream":
        upstream.results = [{"id": "x", "text": TEXT, "score": 0.9, **CASES[field]}]
        asked = search(client, QUESTION, namespace=namespace)["upstream"]
        counted = (asked.get("kept", 0), asked.get("refused", 0))  # 0 is left out
        assert counted == ((0, 1) if field == "text" else (1, 0))
    else:
        assert field in PATHS[path](served, namespace, CASES[field])
        assert stored(runtime, namespace) == []
    for entry in stored(runtime, namespace):
        assert breaches(entry, runtime.services.settings.chunking) == []
    assert_round_trips(client, namespace)
