"""A search keeps the entries it read (``service/domain/search/kept_passages.py``): every
change to an entry is seen by the next search, on real stores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from schemas import wire
from service.application.auth import OPEN
from service.bootstrap import Runtime
from service.lifespan import open_runtime
from service.settings import Settings
from service.stores.embedder import SentenceTransformerEmbedder


@pytest.fixture
def opened(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> Iterator[Runtime]:
    runtime = open_runtime(
        Settings().replace(data_dir=tmp_path / "data", query_cache_size=0),
        embedder=embedder,
    )
    yield runtime
    runtime.close()


def found(runtime: Runtime, query: str) -> dict[str, wire.Tier]:
    searched = runtime.services.search.search(
        OPEN, wire.SearchRequest(query=query, namespace="team", min_score=0, limit=20)
    )
    return {r.entry.id: r.entry.tier for r in searched.outcome.results}


def test_a_promotion_a_deletion_and_a_new_entry_are_seen_by_the_next_search(
    opened: Runtime,
) -> None:
    opened.services.events.write(
        OPEN,
        [
            team("talk", "We talked about moving billing to Postgres.", "C"),
            team("old", "Billing runs on MySQL."),
        ],
    )
    assert found(opened, "billing postgres") == {"talk": "C", "old": "A"}
    assert found(opened, "billing postgres") == {"talk": "C", "old": "A"}  # kept, read again
    opened.services.admin.promote(OPEN, wire.PromoteRequest(ids=["talk"], namespace="team"))
    assert found(opened, "billing postgres")["talk"] == "A"
    opened.services.events.delete(OPEN, "old", "team")
    assert "old" not in found(opened, "billing postgres")
    opened.services.events.write(OPEN, [team("new", "Billing moved.")])
    assert set(found(opened, "billing")) == {"talk", "new"}


def team(id: str, text: str, tier: wire.Tier = "A") -> wire.Event:
    return wire.Event(id=id, tier=tier, text=text, namespace="team")
