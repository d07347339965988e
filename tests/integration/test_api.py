"""The REST API over real stores and the real model, in process."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.bootstrap import Runtime
from service.settings import Settings
from tests.fakes import FakeClock
from tests.http import ADMIN, AGENT_ONE, LOCAL, ids, search, write

OpenStores = Callable[[Settings], Runtime]


def client_for(resources: Runtime) -> Iterator[TestClient[Litestar]]:
    with TestClient(create_app(services=resources.services), base_url=LOCAL) as client:
        yield client


@pytest.fixture
def client(
    tmp_path: Path, chroma_url: str, open_stores: OpenStores
) -> Iterator[TestClient[Litestar]]:
    settings = Settings().replace(
        data_dir=tmp_path, chroma_url=chroma_url, max_batch=5, max_body_bytes=100_000
    )
    yield from client_for(open_stores(settings))


@pytest.fixture
def keyed(tmp_path: Path, open_stores: OpenStores) -> Iterator[TestClient[Litestar]]:
    keys = f"{ADMIN}=admin;{AGENT_ONE}=agent:one"
    yield from client_for(open_stores(Settings().replace(data_dir=tmp_path, api_keys=keys)))


def test_write_then_search_every_mode(client: TestClient[Litestar]) -> None:
    written = write(
        client,
        {
            "id": "db",
            "tier": "A",
            "text": "We decided to use PostgreSQL for billing.",
            "speaker": "alice",
            "tags": ["db"],
        },
        {"id": "chat", "tier": "C", "text": "Maybe we should cache sessions in Redis?"},
        {
            "id": "log",
            "tier": "E",
            "text": "pg_dump finished: 3 tables exported",
            "chain_type": "backup",
        },
    )
    assert written == {
        "ids": ["db", "chat", "log"],
        "embedded": 2,
        "indexed": 3,
        "written": [{"id": "db"}, {"id": "chat"}, {"id": "log"}],
    }
    # No relevance floor: the shipped model puts this paraphrase's answer near 0.0025.
    hybrid = search(client, "which database did we choose?", explain=True, min_score=0)
    assert hybrid["mode"] == "hybrid"
    assert ids(hybrid)[0] == "db"
    top = hybrid["results"][0]
    assert 0 < top["score"] <= 1
    parts = {name for name in top["explain"] if not name.startswith("model.")}
    assert parts <= {"bm25", "vector", "tier", "answerable"} and "model.cosine" in top["explain"]
    assert 0 < top["explain"]["answerable"]["score"] <= 1
    # Words in common and the meaning: well above the relevance floor. (The question above
    # shares no content word with the entry and is only as close as a cosine of 0.42: its
    # best candidate scores below the floor, which min_score 0 turned off.)
    assert ids(search(client, "which database do we use for billing?"))[0] == "db"
    assert top["explain"]["vector"]["rank"] == 1 and top["explain"]["tier"]["score"] == 1.0
    assert all(0 <= r["score"] <= 1 for r in hybrid["results"])
    assert ids(search(client, "tables exported", tiers=["E"])) == ["log"]
    assert search(client, "tables", tiers=["E"])["mode"] == "bm25"
    assert "log" not in ids(search(client, "tables exported", mode="vector"))
    assert ids(search(client, "session caching", mode="vector", tiers=["C"])) == ["chat"]


def test_reposting_an_id_replaces_the_entry(client: TestClient[Litestar]) -> None:
    write(client, {"id": "x", "tier": "A", "text": "use tabs"})
    write(client, {"id": "x", "tier": "E", "text": "use spaces"})
    entry = client.get("/v1/entries/x").json()
    assert (entry["tier"], entry["text"]) == ("E", "use spaces")
    assert ids(search(client, "tabs", mode="bm25")) == []
    assert ids(search(client, "use", mode="vector")) == []


def test_expired_c_entries_leave_search(client: TestClient[Litestar], clock: FakeClock) -> None:
    write(client, {"id": "c", "tier": "C", "text": "flaky test discussion", "ttl_days": 1})
    assert ids(search(client, "flaky test")) == ["c"]
    clock.now += 2 * 86_400
    assert search(client, "flaky test")["results"] == []
    assert search(client, "flaky test", mode="vector")["results"] == []


def test_long_text_is_chunked_and_snippet_is_the_matching_part(
    client: TestClient[Litestar],
) -> None:
    filler = " ".join(f"word{n}" for n in range(400))
    write(client, {"id": "long", "tier": "A", "text": f"{filler} kubernetes autoscaling decision"})
    hit = search(client, "kubernetes autoscaling")["results"][0]
    assert hit["id"] == "long"
    assert "kubernetes" in hit["snippet"] and len(hit["snippet"]) < 400


def test_tier_weights_and_c_recency_shape_the_score(
    tmp_path: Path, open_stores: OpenStores
) -> None:
    settings = Settings().replace(
        data_dir=tmp_path, tier_weights={"A": 1.5, "C": 1.2, "E": 1.0}, c_recency_days=3.5
    )
    for client in client_for(open_stores(settings)):
        tiers_and_recency(client)


def test_by_default_tiers_and_age_weigh_nothing(client: TestClient[Litestar]) -> None:
    write(
        client,
        {"id": "a", "tier": "A", "text": "canary deploys for the payments service"},
        {"id": "c", "tier": "C", "text": "canary deploys for the payments service"},
    )
    found = search(client, "canary deploys payments", explain=True, mode="bm25")
    assert [r["score"] for r in found["results"]] == [found["results"][0]["score"]] * 2
    assert all(r["explain"]["tier"]["score"] == 1.0 for r in found["results"])


def tiers_and_recency(client: TestClient[Litestar]) -> None:
    week_ago = "2027-01-08T08:00:00Z"  # the test clock reads 2027-01-15T08:00:00Z
    write(
        client,
        {"id": "a", "tier": "A", "text": "canary deploys for the payments service"},
        {
            "id": "c",
            "tier": "C",
            "text": "canary deploys for the payments service",
            "timestamp": week_ago,
            "ttl_days": 30,
        },
        {"id": "e", "tier": "E", "text": "canary deploys for the payments service"},
    )
    found = search(client, "canary deploys payments", explain=True, mode="bm25")
    assert ids(found) == ["a", "e", "c"]
    by_id = {r["id"]: r for r in found["results"]}
    assert by_id["e"]["explain"]["tier"]["score"] == pytest.approx(1 / 1.5, abs=1e-6)
    assert by_id["c"]["explain"]["recency"]["score"] == pytest.approx(0.1353, abs=1e-3)
