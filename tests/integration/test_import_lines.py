"""An import's lines on the real stores: a line that is not UTF-8 or is over the length
bound is a bad line like any other, bad lines are counted without their reasons past the
first, a collection's folder is held to the roots, and the audit trail of deleted entries
moves with the namespace."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.application.import_lines import MAX_LINE_BYTES, SHOWN, TOO_LONG
from service.settings import Settings
from service.stores.embedder import SentenceTransformerEmbedder
from tests.apps import served_runtime
from tests.http import problem, write

NDJSON = {"Content-Type": "application/x-ndjson"}


@pytest.fixture
def client(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> Iterator[TestClient[Litestar]]:
    """A service whose collections may be under ``tmp_path/roots`` only, holding a
    namespace ``one`` of two entries."""
    (tmp_path / "roots").mkdir()
    settings = Settings().replace(
        data_dir=tmp_path / "data", collection_roots=str(tmp_path / "roots"), jobs="off"
    )
    with served_runtime(settings, embedder) as (_, client):
        write(
            client,
            {"id": "kept", "tier": "E", "text": "GET /kept 200", "namespace": "one"},
            {"id": "gone", "tier": "E", "text": "GET /gone 404", "namespace": "one"},
        )
        yield client


def export(client: TestClient[Litestar], namespace: str = "one") -> list[bytes]:
    response = client.get(f"/v1/namespaces/{namespace}/export")
    assert response.status_code == 200, response.text
    return response.content.splitlines()


def with_lines(lines: list[bytes], *extra: bytes) -> bytes:
    """The export with ``extra`` lines before its end line, which counts them."""
    *body, _ = lines
    end = json.dumps({"record": "end", "lines": len(body) + len(extra)}).encode()
    return b"".join(line + b"\n" for line in [*body, *extra, end])


def import_(client: TestClient[Litestar], content: bytes, namespace: str, **params: Any) -> Any:
    return client.post(
        f"/v1/namespaces/{namespace}/import", content=content, params=params, headers=NDJSON
    )


def entry(id: str, text: str) -> bytes:
    line = {"record": "entry", "id": id, "tier": "E", "text": text, "timestamp": 1e9}
    return json.dumps(line).encode()


def test_a_line_that_is_not_utf8_is_a_bad_line(client: TestClient[Litestar]) -> None:
    lines = export(client)
    latin = entry("cafe", "caf\u00e9").replace(b"\\u00e9", b"\xe9")
    content = with_lines(lines, latin, entry("fine", "GET /fine 200"))
    bad = len(lines)  # its number: after the header and the entries
    refused = problem(import_(client, content, "two"), 422)
    assert f"line {bad}" in refused["detail"] and "utf-8" in refused["detail"].lower()
    assert client.get("/v1/entries/kept", params={"namespace": "two"}).status_code == 404
    done = import_(client, content, "two", skip_bad_lines="true")
    assert done.status_code == 200, done.text
    body = done.json()
    assert [s["line"] for s in body["skipped"]] == [bad] and body["skipped_count"] == 1
    assert body["imported"]["entries"] == 3
    assert client.get("/v1/entries/fine", params={"namespace": "two"}).status_code == 200


def test_a_header_that_is_not_utf8_is_refused(client: TestClient[Litestar]) -> None:
    header, *rest = export(client)
    broken = header.replace(b'"one"', b'"\xff"')
    refused = problem(import_(client, with_lines([broken, *rest]), "two"), 422)
    assert "line 1" in refused["detail"]


def test_bad_lines_past_the_first_are_counted_not_named(client: TestClient[Litestar]) -> None:
    many = 3 * SHOWN
    content = with_lines(export(client), *[b"{}"] * many)
    refused = problem(import_(client, content, "two"), 422)
    assert refused["detail"].count("line ") == SHOWN
    assert f"{many - SHOWN} more bad lines not shown" in refused["detail"]
    body = import_(client, content, "two", skip_bad_lines="true").json()
    assert len(body["skipped"]) == SHOWN and body["skipped_count"] == many
    assert body["imported"]["entries"] == 2


def test_a_line_over_the_bound_is_a_bad_line(client: TestClient[Litestar]) -> None:
    lines = export(client)
    huge = entry("huge", "x" * MAX_LINE_BYTES)
    content = with_lines(lines, huge, entry("after", "GET /after 200"))
    body = import_(client, content, "two", skip_bad_lines="true").json()
    assert body["skipped"] == [{"line": len(lines), "reason": TOO_LONG}]
    assert body["imported"]["entries"] == 3
    assert client.get("/v1/entries/after", params={"namespace": "two"}).status_code == 200


def test_a_collection_outside_the_roots_is_refused(
    client: TestClient[Litestar], tmp_path: Path
) -> None:
    notes = tmp_path / "roots" / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nAlpha.\n")
    added = client.post(
        "/v1/collections", json={"name": "notes", "path": str(notes), "namespace": "one"}
    )
    assert added.status_code == 201, added.text
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    for path in (str(outside), "/etc", "relative/notes"):
        moved = [
            line.replace(json.dumps(str(notes)).encode(), json.dumps(path).encode())
            for line in export(client)
        ]
        assert moved != export(client)
        refused = problem(import_(client, with_lines(moved), "one"), 422)
        assert "outside the folders collections may read" in refused["detail"], path
    listed = client.get("/v1/collections").json()["collections"]
    assert [c["path"] for c in listed] == [str(notes)]


def test_deleted_entries_keep_their_audit_trail_through_export_and_import(
    client: TestClient[Litestar],
) -> None:
    deleted = client.delete("/v1/entries/gone", params={"namespace": "one"})
    assert deleted.status_code == 200, deleted.text
    trail = client.get("/v1/entries/gone/history", params={"namespace": "one"}).json()
    assert [h["action"] for h in trail["history"]] == ["created", "deleted"]
    lines = [json.loads(line) for line in export(client)]
    assert [line["id"] for line in lines if line["record"] == "deleted"] == ["gone"]
    content = with_lines([json.dumps(line).encode() for line in lines])
    erased = client.delete("/v1/namespaces/one", params={"confirm": "one"})
    assert erased.status_code == 200, erased.text
    assert client.get("/v1/entries/gone/history", params={"namespace": "one"}).status_code == 404
    done = import_(client, content, "one")
    assert done.status_code == 200, done.text
    assert done.json()["imported"]["deleted"] == 1
    restored = client.get("/v1/entries/gone/history", params={"namespace": "one"}).json()
    assert restored["history"] == trail["history"]
    assert client.get("/v1/entries/gone", params={"namespace": "one"}).status_code == 404
    assert client.get("/v1/entries/kept", params={"namespace": "one"}).status_code == 200
    again = import_(client, content, "one").json()["imported"]
    assert (again["deleted"], again["unchanged"]) == (0, 1)
