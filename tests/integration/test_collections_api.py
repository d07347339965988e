"""Collections of markdown files through the REST API."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from service.domain.entries import Entry
from service.domain.memory.outcomes import WriteOutcome
from service.settings import Settings
from service.stores.embedder import SentenceTransformerEmbedder
from tests.apps import opened_runtime, served_runtime

ADR = """# ADR 12: Event bus

## Context

Runtime poll each other every few seconds, which wastes CPU.

## Decision

We adopt NATS as the event bus for service to service notifications.

```yaml
bus: nats
# a comment in a fence

retries: 3
```
"""


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "adr").mkdir(parents=True)
    (root / "adr" / "012-event-bus.md").write_text(ADR)
    (root / "people.md").write_text("Alice owns billing.\n\nBob owns the mobile app.\n")
    (root / "skip.txt").write_text("not markdown")
    (tmp_path / "secret.md").write_text("# Secret\n\nthe launch code is 1234\n")
    return root


@pytest.fixture
def opened(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> Iterator[Runtime]:
    settings = Settings().replace(data_dir=tmp_path / "data", collection_roots=str(tmp_path))
    with opened_runtime(settings, embedder) as runtime:
        yield runtime


def add(client: TestClient[Litestar], root: Path, name: str = "notes") -> dict[str, Any]:
    response = client.post("/v1/collections", json={"name": name, "path": str(root)})
    assert response.status_code == 201, response.text
    added: dict[str, Any] = response.json()
    return added


def test_index_search_and_fetch_by_line_range(client: TestClient[Litestar], notes: Path) -> None:
    scan = add(client, notes)
    assert (scan["added"], scan["collection"]["files"]) == (2, 2)
    found = client.post("/v1/search", json={"query": "which message bus did we pick?"}).json()
    top = found["results"][0]
    assert top["file"] == "notes/adr/012-event-bus.md"
    assert top["title"] == "ADR 12: Event bus"
    first, last = map(int, top["lines"].split("-"))
    assert first <= 9 <= last and 0 < top["score_pct"] <= 100

    doc = client.get("/v1/documents", params={"path": top["file"], "from": 9, "lines": 1}).json()
    assert doc["text"] == " 9| We adopt NATS as the event bus for service to service notifications."
    assert (doc["first_line"], doc["last_line"], doc["total_lines"]) == (9, 9, 16)
    uri = client.get("/v1/documents", params={"path": "strata://notes/people.md"}).json()
    assert uri["title"] == "people.md" and "Bob owns" in uri["text"]

    batch = client.post("/v1/documents/batch", json={"pattern": "notes/**/*.md"}).json()
    assert [d["path"] for d in batch["documents"]] == [
        "notes/adr/012-event-bus.md",
        "notes/people.md",
    ]
    top = client.post("/v1/documents/batch", json={"pattern": "notes/*.md"}).json()
    assert [d["path"] for d in top["documents"]] == ["notes/people.md"]
    listed = client.post(
        "/v1/documents/batch",
        json={"pattern": "notes/people.md, notes/adr/012-event-bus.md", "max_bytes": 100},
    ).json()
    assert [d["path"] for d in listed["documents"]] == ["notes/people.md"]
    assert listed["skipped"][0]["path"] == "notes/adr/012-event-bus.md"


@pytest.mark.parametrize("path", ["notes/.env", "notes/.git/config", "notes/skip.txt"])
def test_only_indexed_documents_are_served(
    client: TestClient[Litestar], notes: Path, path: str
) -> None:
    (notes / ".env").write_text("API_TOKEN=hunter2\n")
    (notes / ".git").mkdir()
    (notes / ".git" / "config").write_text("[remote]\n  url = https://hunter2@example.com\n")
    add(client, notes)
    assert client.get("/v1/documents", params={"path": path}).status_code == 404
    listed = client.post("/v1/documents/batch", json={"pattern": f"{path}, notes/people.md"})
    assert listed.json()["skipped"] == [{"path": path, "reason": "not an indexed document"}]
    assert "hunter2" not in listed.text and "not markdown" not in listed.text


def test_a_document_reads_as_indexed_until_the_next_scan(
    client: TestClient[Litestar], notes: Path
) -> None:
    """Lines are cut as ``str.splitlines`` cuts the text indexed (CRLF, an unended last
    line); a change on disk shows once a scan has indexed it."""
    body = "".join(f"line {n}\r\n" for n in range(2, 2001))
    (notes / "big.md").write_text("# Big\n" + body + "last, unended", newline="")
    add(client, notes)
    (notes / "big.md").write_text("# Smaller\n")
    params: dict[str, str | int] = {"path": "notes/big.md", "from": 1500, "lines": 2}
    doc = client.get("/v1/documents", params=params).json()
    assert doc["text"] == "1500| line 1500\n1501| line 1501"
    assert (doc["title"], doc["total_lines"]) == ("Big", 2001)
    client.post("/v1/collections/notes/update")
    doc = client.get("/v1/documents", params={"path": "notes/big.md"}).json()
    assert (doc["title"], doc["text"], doc["total_lines"]) == ("Smaller", "1| # Smaller", 1)


def test_code_fences_are_never_split(
    opened: Runtime, notes: Path, client: TestClient[Litestar]
) -> None:
    add(client, notes)
    texts = [s.entry.text for batch in opened.stores.ledger.scan() for s in batch]
    fences = [t for t in texts if "```" in t]
    assert fences and all(t.count("```") == 2 for t in fences)


@pytest.mark.parametrize(
    "path",
    [
        "notes/../secret.md",
        "notes//etc/passwd",
        "notes/adr/../../secret.md",
        "notes/link.md",
        "strata://notes/../secret.md",
    ],
)
def test_paths_never_escape_the_root(client: TestClient[Litestar], notes: Path, path: str) -> None:
    os.symlink(notes.parent / "secret.md", notes / "link.md")
    add(client, notes)
    response = client.get("/v1/documents", params={"path": path})
    assert response.status_code in (403, 404), response.text
    assert "launch code" not in response.text
    batch = client.post("/v1/documents/batch", json={"pattern": path})
    assert "launch code" not in batch.text
    found = client.post("/v1/search", json={"query": "launch code"}).json()["results"]
    assert all("launch code" not in hit["text"] for hit in found)


def test_rescan_reembeds_changed_files_only_and_forgets_removed(
    client: TestClient[Litestar],
    notes: Path,
    embedder: SentenceTransformerEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    add(client, notes)
    embedded: list[str] = []
    original = embedder.embed

    def recording(texts: Sequence[str]) -> list[tuple[float, ...]]:
        embedded.extend(texts)
        return original(texts)

    monkeypatch.setattr(embedder, "embed", recording)
    (notes / "people.md").write_text("Carol owns billing now.\n")
    (notes / "adr" / "012-event-bus.md").unlink()
    (notes / "new.md").write_text("# Runbook\n\nRestart the worker with make restart.\n")
    scan = client.post("/v1/collections/notes/update").json()
    assert (scan["added"], scan["changed"], scan["removed"], scan["unchanged"]) == (1, 1, 1, 0)
    assert all("NATS" not in t for t in embedded) and len(embedded) == 2
    assert (
        client.post("/v1/search", json={"query": "NATS event bus", "mode": "bm25"}).json()[
            "results"
        ]
        == []
    )
    hit = client.post("/v1/search", json={"query": "who owns billing"}).json()["results"][0]
    assert "Carol" in hit["text"]
    again = client.post("/v1/collections/notes/update").json()
    assert (again["unchanged"], again["chunks"]) == (2, 0)


def test_rename_list_and_remove(client: TestClient[Litestar], notes: Path) -> None:
    add(client, notes)
    assert (
        client.post("/v1/collections", json={"name": "notes", "path": str(notes)}).status_code
        == 409
    )
    renamed = client.patch("/v1/collections/notes", json={"name": "kb"}).json()
    assert renamed["name"] == "kb"
    hit = client.post("/v1/search", json={"query": "mobile app"}).json()["results"][0]
    assert hit["file"] == "kb/people.md"
    assert [c["name"] for c in client.get("/v1/collections").json()["collections"]] == ["kb"]
    assert client.delete("/v1/collections/kb").status_code == 200
    assert client.post("/v1/search", json={"query": "mobile app"}).json()["results"] == []
    assert client.get("/v1/collections/kb").status_code == 404


def test_bad_collection_requests(client: TestClient[Litestar], notes: Path) -> None:
    relative = client.post("/v1/collections", json={"name": "x", "path": "notes"})
    assert relative.status_code == 422 and relative.json()["errors"][0]["field"] == "path"
    missing = client.post("/v1/collections", json={"name": "x", "path": str(notes / "nope")})
    assert missing.status_code == 422
    assert (
        client.post("/v1/collections", json={"name": "a b", "path": str(notes)}).status_code == 422
    )
    assert client.get("/v1/documents", params={"path": "nope/x.md"}).status_code == 404
    assert client.get("/v1/documents", params={"path": "nocollection"}).status_code == 422


def test_a_running_scan_shows_its_progress(
    client: TestClient[Litestar], opened: Runtime, notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[dict[str, Any] | None] = []
    write = opened.memory.writer.write

    def watched_write(entries: Sequence[Entry], actor: str = "") -> WriteOutcome:
        seen.append(client.get("/v1/collections/notes").json()["scanning"])
        return write(entries, actor)

    monkeypatch.setattr(opened.memory.writer, "write", watched_write)
    add(client, notes)
    assert seen and all(s is not None and s["total"] == 2 for s in seen)
    assert all(0 <= s["done"] <= s["total"] for s in seen if s)
    assert client.get("/v1/collections/notes").json()["scanning"] is None


def test_the_rescan_job_picks_up_edits_when_scheduled(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, notes: Path
) -> None:
    settings = Settings().replace(
        data_dir=tmp_path / "scheduled", rescan_cron="*/5 * * * *", collection_roots=str(tmp_path)
    )
    with served_runtime(settings, embedder) as (_, client):
        add(client, notes)
        (notes / "people.md").write_text("Carol owns billing now.\n")
        (notes / "adr" / "012-event-bus.md").unlink()
        run = client.post("/v1/admin/jobs/rescan_collections/run").json()
        assert run["last_result"] == {"collections": 1, "added": 0, "changed": 1, "removed": 1}
        found = client.post("/v1/search", json={"query": "who owns billing"}).json()
        assert "Carol" in found["results"][0]["text"]


def test_no_rescan_job_unless_scheduled(client: TestClient[Litestar]) -> None:
    names = [j["name"] for j in client.get("/v1/admin/jobs").json()["jobs"]]
    assert "rescan_collections" not in names
