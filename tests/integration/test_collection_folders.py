"""Collections on a real disk: links and ``..`` judged by where they lead, and what a scan
meets there that it cannot index (FIFOs, folders named like notes, link loops, bytes that
are not UTF-8, files vanishing mid-scan) skipped with the reason, never a failure."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from service.domain.model import Listing
from service.settings import Settings
from service.stores.embedder import SentenceTransformerEmbedder
from tests.apps import opened_runtime

OUTSIDE = "is outside the folders collections may read (STRATA_COLLECTION_ROOTS)"


@pytest.fixture
def roots(tmp_path: Path) -> Path:
    """``roots/notes`` with two notes, and ``outside`` beside it with a secret one."""
    notes = tmp_path / "roots" / "notes"
    notes.mkdir(parents=True)
    (notes / "a.md").write_text("# A\n\nThe deploy runs on Thursdays.\n")
    (notes / "people.md").write_text("Alice owns billing.\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.md").write_text("# Secret\n\nthe launch code is 1234\n")
    return tmp_path / "roots"


@pytest.fixture
def opened(tmp_path: Path, roots: Path, embedder: SentenceTransformerEmbedder) -> Iterator[Runtime]:
    settings = Settings().replace(
        data_dir=tmp_path / "data", collection_roots=str(roots), max_file_bytes=1000
    )
    with opened_runtime(settings, embedder) as runtime:
        yield runtime


def register(client: TestClient[Litestar], path: Path | str) -> Any:
    return client.post("/v1/collections", json={"name": "notes", "path": str(path)})


def scanned(client: TestClient[Litestar], path: Path) -> dict[str, Any]:
    response = register(client, path)
    assert response.status_code == 201, response.text
    scan: dict[str, Any] = response.json()
    return scan


def skipped(scan: dict[str, Any]) -> list[tuple[str, str]]:
    return [(s["path"], s["reason"]) for s in scan["skipped"]]


def test_links_and_dots_are_judged_by_where_they_lead(
    client: TestClient[Litestar], roots: Path
) -> None:
    outside = roots.parent / "outside"
    (roots / "escape").symlink_to(outside, target_is_directory=True)
    (roots / "system").symlink_to("/etc", target_is_directory=True)
    for path in (roots / "escape", roots / "system", f"{roots}/notes/../../outside", "/"):
        response = register(client, path)
        assert response.status_code == 422, response.text
        assert response.json()["errors"] == [
            {"field": "path", "message": f"{path} {OUTSIDE}: {roots}"}
        ]
    assert client.get("/v1/collections").json()["collections"] == []


def test_what_a_scan_cannot_index_is_skipped_with_the_reason(
    client: TestClient[Litestar], roots: Path
) -> None:
    notes = roots / "notes"
    (notes / "link.md").symlink_to(roots.parent / "outside" / "secret.md")
    (notes / "loop.md").symlink_to(notes / "loop.md")
    os.mkfifo(notes / "pipe.md")  # reading it would wait for a writer for ever
    (notes / "folder.md").mkdir()
    (notes / "latin1.md").write_bytes("caf\xe9\n".encode("latin-1"))
    (notes / "big.md").write_text("word " * 300)
    scan = scanned(client, notes)
    assert (scan["added"], scan["collection"]["files"]) == (2, 2)
    assert skipped(scan) == [
        ("notes/big.md", "1500 bytes, over the 1000-byte file bound"),
        ("notes/latin1.md", "not UTF-8 text (byte 3)"),
        ("notes/link.md", "leaves the collection folder"),
        ("notes/loop.md", "a link loop"),
        ("notes/pipe.md", "not a regular file"),
    ]
    found = client.post("/v1/search", json={"query": "launch code", "mode": "bm25"}).json()
    assert found["results"] == []


@pytest.mark.parametrize("becomes", ["gone", "a folder", "a fifo", "a link out"])
def test_a_file_changed_between_listing_and_reading_is_skipped(
    client: TestClient[Litestar],
    opened: Runtime,
    roots: Path,
    monkeypatch: pytest.MonkeyPatch,
    becomes: str,
) -> None:
    """``/proc`` files vanish between the listing and the reading; so may any file."""
    files = opened.stores.files
    listed = files.list
    people = roots / "notes" / "people.md"

    def listing_then_change(root: str, mask: str, *, limit: int | None = None) -> Listing:
        found = listed(root, mask, limit=limit)
        people.unlink()
        if becomes == "a folder":
            people.mkdir()
        elif becomes == "a fifo":
            os.mkfifo(people)
        elif becomes == "a link out":
            people.symlink_to(roots.parent / "outside" / "secret.md")
        return found

    monkeypatch.setattr(files, "list", listing_then_change)
    scan = scanned(client, roots / "notes")
    reason = "leaves the collection folder" if becomes == "a link out" else "gone, or no longer"
    assert [(path, why[: len(reason)]) for path, why in skipped(scan)] == [
        ("notes/people.md", reason)
    ]
    assert scan["added"] == 1


def test_a_folder_whose_path_now_leads_out_is_not_rescanned(
    client: TestClient[Litestar], roots: Path
) -> None:
    notes = roots / "notes"
    registered = scanned(client, notes)["collection"]["path"]
    shutil.move(notes, roots.parent / "moved")
    notes.symlink_to(roots.parent / "outside", target_is_directory=True)
    response = client.post("/v1/collections/notes/update")
    assert response.status_code == 409, response.text
    assert response.json()["detail"] == (
        f"the folder of collection 'notes', {registered}, {OUTSIDE}: {roots}; nothing was changed"
    )
    listed = client.get("/v1/collections/notes").json()
    assert listed["files"] == 2
