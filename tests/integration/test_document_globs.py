"""Globs over documents through the REST API, on the real stores: bounded in length, and
read without backtracking whatever they hold."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from schemas import wire
from service.domain.collections.globs import MAX_GLOB_LENGTH
from service.settings import Settings
from service.stores.embedder import SentenceTransformerEmbedder
from tests.apps import served_runtime
from tests.http import problem


@pytest.fixture
def client(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> Iterator[TestClient[Litestar]]:
    """A service with a collection ``notes`` of two documents."""
    root = tmp_path / "notes"
    (root / "adr").mkdir(parents=True)
    (root / "adr" / "bus.md").write_text("# Bus\n\nWe adopt NATS.\n")
    (root / "people.md").write_text("Alice owns billing.\n")
    settings = Settings().replace(
        data_dir=tmp_path / "data", collection_roots=str(tmp_path), jobs="off"
    )
    with served_runtime(settings, embedder) as (_, client):
        added = client.post("/v1/collections", json={"name": "notes", "path": str(root)})
        assert added.status_code == 201, added.text
        yield client


def paths(client: TestClient[Litestar], pattern: str) -> list[str]:
    response = client.post("/v1/documents/batch", json={"pattern": pattern})
    assert response.status_code == 200, response.text
    return [d["path"] for d in response.json()["documents"]]


def test_a_glob_over_its_bound_is_refused_as_documented(client: TestClient[Litestar]) -> None:
    hostile = "notes/" + "[" * 9980
    assert re.search(wire.DOCUMENTS, hostile) is None
    response = client.post("/v1/documents/batch", json={"pattern": hostile})
    assert f"at most {MAX_GLOB_LENGTH} characters" in problem(response, 422)["detail"]


@pytest.mark.parametrize(
    "pattern",
    [
        "notes/" + "[" * (MAX_GLOB_LENGTH - 6),
        "notes/**/" + "*[" * ((MAX_GLOB_LENGTH - 9) // 2),
        "notes/**/" + "*?" * ((MAX_GLOB_LENGTH - 20) // 2) + "*.md",
    ],
)
def test_a_hostile_glob_within_the_bound_is_read(
    client: TestClient[Litestar], pattern: str
) -> None:
    assert len(pattern) <= MAX_GLOB_LENGTH and re.search(wire.DOCUMENTS, pattern)
    assert paths(client, pattern) == []


def test_globs_within_the_bound_match_as_before(client: TestClient[Litestar]) -> None:
    assert paths(client, "notes/**/*.md") == ["notes/adr/bus.md", "notes/people.md"]
    assert paths(client, "notes/[!a]*.md") == ["notes/people.md"]
    assert paths(client, "notes/*/[a-c]?s.md") == ["notes/adr/bus.md"]
    assert paths(client, "strata://notes/*" + "*" * 900 + "e.md") == ["notes/people.md"]
