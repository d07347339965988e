"""Expiry, promotion, jobs, rebuild, history and stats through the REST API."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.application import Services
from service.settings import Settings
from service.stores.embedder import SentenceTransformerEmbedder
from tests.fakes import FakeClock
from tests.http import LOCAL, search, write
from tests.integration.test_api import OpenStores

ADMIN = {"Authorization": "Bearer admin-key-0123456789"}
AGENT = {"Authorization": "Bearer agent-key-0123456789"}
KEYS = "admin-key-0123456789=admin;agent-key-0123456789=agent"
DAY = 86_400


@pytest.fixture
def opened(tmp_path: Path, chroma_url: str, open_stores: OpenStores) -> Services:
    return open_stores(Settings().replace(data_dir=tmp_path, chroma_url=chroma_url, api_keys=KEYS))


@pytest.fixture
def client(opened: Services) -> Iterator[TestClient[Litestar]]:
    with TestClient(create_app(services=opened), base_url=LOCAL) as client:
        client.headers.update(ADMIN)
        yield client


def ids(found: dict[str, Any]) -> list[str]:
    return [r["id"] for r in found["results"]]


def run_job(client: TestClient[Litestar], name: str) -> dict[str, Any]:
    response = client.post(f"/v1/admin/jobs/{name}/run")
    assert response.status_code == 200, response.text
    record: dict[str, Any] = response.json()
    return record


def test_expired_c_is_hidden_then_archived_and_still_found_as_archived(
    client: TestClient[Litestar], opened: Services, clock: FakeClock
) -> None:
    write(
        client,
        {"id": "talk", "tier": "C", "text": "flaky checkout tests", "ttl_days": 1},
        {"id": "keep", "tier": "C", "text": "flaky checkout retry plan", "ttl_days": 1},
    )
    client.post("/v1/admin/promote", json={"ids": ["keep"]}).raise_for_status()
    clock.now += 2 * DAY
    assert ids(search(client, "flaky checkout")) == ["keep"]
    assert ids(search(client, "flaky checkout", mode="vector")) == ["keep"]
    found = search(client, "flaky checkout", include_archived=True)
    assert {r["id"]: r["archived"] for r in found["results"]} == {"keep": False, "talk": True}

    job = run_job(client, "expire_c_tier")
    assert job["last_result"] == {"archived": 1} and job["last_error"] is None
    assert opened.stores.vectors.count("C") == 0 and opened.stores.vectors.count("A") == 1
    assert run_job(client, "expire_c_tier")["last_result"] == {"archived": 0}
    assert ids(search(client, "flaky checkout")) == ["keep"]
    archived = search(client, "flaky checkout", include_archived=True, mode="bm25")
    assert set(ids(archived)) == {"talk", "keep"}
    history = client.get("/v1/entries/talk/history").json()["history"]
    assert [h["action"] for h in history] == ["created", "archived"]
    assert history[1]["actor"] == "scheduler"


def test_promote_moves_the_stored_vector_to_tier_a(
    client: TestClient[Litestar],
    opened: Services,
    embedder: SentenceTransformerEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write(
        client,
        {"id": "c1", "tier": "C", "text": "we will version the API in the URL path"},
        {"id": "e1", "tier": "E", "text": "build 42 ok"},
    )
    calls: list[Sequence[str]] = []

    def recording(texts: Sequence[str]) -> list[tuple[float, ...]]:
        calls.append(texts)
        return []

    monkeypatch.setattr(embedder, "embed", recording)
    bad = client.post("/v1/admin/promote", json={"ids": ["c1", "nope", "e1"]})
    assert bad.status_code == 422
    assert [e["field"] for e in bad.json()["errors"]] == ["ids[1]", "ids[2]"]
    assert client.get("/v1/entries/c1").json()["tier"] == "C"

    done = client.post("/v1/admin/promote", json={"ids": ["c1"]})
    assert done.json() == {"namespace": "default", "promoted": ["c1"]}
    assert calls == []
    entry = client.get("/v1/entries/c1").json()
    assert (entry["tier"], entry["expires_at"]) == ("A", None)
    assert (opened.stores.vectors.count("A"), opened.stores.vectors.count("C")) == (1, 0)
    history = client.get("/v1/entries/c1/history").json()["history"]
    assert [h["action"] for h in history] == ["created", "promoted"]
    assert history[1]["actor"].startswith("key:")


def test_old_e_entries_are_archived(client: TestClient[Litestar], clock: FakeClock) -> None:
    write(
        client,
        {"id": "old", "tier": "E", "text": "cron ran", "timestamp": "2020-01-01T00:00:00Z"},
        {"id": "new", "tier": "E", "text": "cron ran"},
    )
    assert run_job(client, "archive_e_tier")["last_result"] == {"archived": 1, "deleted": 0}
    assert ids(search(client, "cron")) == ["new"]
    assert set(ids(search(client, "cron", include_archived=True))) == {"old", "new"}


def test_rebuild_gives_the_same_results(client: TestClient[Litestar], opened: Services) -> None:
    write(
        client,
        *[
            {"id": f"n{n}", "tier": "ACE"[n % 3], "text": f"note {n} on caching layer {n % 4}"}
            for n in range(30)
        ],
    )
    queries = ["caching layer 2", "note 7", "cache"]
    before = [search(client, q, limit=20)["results"] for q in queries]
    started = client.post("/v1/admin/rebuild")
    assert started.status_code == 202 and started.json()["total"] == 30
    opened.rebuilder.wait(60)
    status = client.get("/v1/admin/rebuild").json()
    assert (status["state"], status["done"]) == ("done", 30)
    after = [search(client, q, limit=20)["results"] for q in queries]
    # The same entries in the same order; a score may differ in its sixth decimal, as the
    # rebuilt vector index may return a cosine a few float bits apart.
    assert [[r["id"] for r in found] for found in after] == [
        [r["id"] for r in found] for found in before
    ]
    for found, earlier in zip(after, before, strict=True):
        assert [r["score"] for r in found] == pytest.approx([r["score"] for r in earlier], abs=2e-6)
        assert [{**r, "score": 0} for r in found] == [{**r, "score": 0} for r in earlier]


def test_stats_show_the_embedding_avoided(client: TestClient[Litestar]) -> None:
    write(
        client,
        {"tier": "A", "text": "decision one two three"},
        *[{"tier": "E", "text": f"log line {n} with several words in it"} for n in range(9)],
    )
    stats = client.get("/v1/stats").json()
    tiers = stats["namespaces"][0]["tiers"]
    assert tiers["A"]["active"] == 1 and tiers["A"]["vectors"] == 1
    assert tiers["E"]["vectors"] == 0 and tiers["E"]["tokens_embedded"] == 0
    totals = stats["totals"]
    assert totals["tokens_embedded"] == tiers["A"]["tokens"] > 0
    assert totals["embedding_avoided"] == pytest.approx(
        1 - totals["tokens_embedded"] / totals["tokens_full_rag"], abs=1e-4
    )
    assert stats["disk_bytes"]["ledger"] > 0 and stats["disk_bytes"]["tantivy"] > 0
    assert client.get("/v1/stats", headers=AGENT).status_code == 200


@pytest.mark.parametrize("unembedded", [3, 0])
def test_passages_embedded_by_searches_count_against_the_embedding_avoided(
    tmp_path: Path, chroma_url: str, open_stores: OpenStores, unembedded: int
) -> None:
    settings = Settings().replace(
        data_dir=tmp_path,
        chroma_url=chroma_url,
        api_keys=KEYS,
        fusion="score",
        unembedded_candidates=unembedded,
    )
    with TestClient(create_app(services=open_stores(settings)), base_url=LOCAL) as client:
        client.headers.update(ADMIN)
        write(
            client,
            {"tier": "A", "text": "we pinned the kubernetes upgrade to version 1.29"},
            *[
                {"tier": "E", "text": f"kubernetes upgrade step {n} finished with exit code 0"}
                for n in range(6)
            ],
        )
        before = client.get("/v1/stats").json()
        assert before["read_time"]["passages"] == {"calls": 0, "texts": 0, "tokens": 0}
        assert before["totals"]["tokens_read_time"] == 0
        search(client, "kubernetes upgrade")  # every tier: BM25 finds the tier E lines
        after = client.get("/v1/stats").json()
    queries = after["read_time"]["queries"]
    assert (queries["calls"], queries["texts"]) == (1, 1) and queries["tokens"] > 2
    passages = after["read_time"]["passages"]
    assert after["namespaces"][0]["read_time"] == passages
    assert after["totals"]["tokens_read_time"] == passages["tokens"]
    full = after["totals"]["tokens_full_rag"]
    assert after["totals"]["embedding_avoided"] == pytest.approx(
        1 - (after["totals"]["tokens_embedded"] + passages["tokens"]) / full, abs=1e-4
    )
    if unembedded:
        assert (passages["calls"], passages["texts"]) == (1, unembedded)
        assert passages["tokens"] > 0
        assert after["totals"]["embedding_avoided"] < before["totals"]["embedding_avoided"]
    else:
        assert passages == {"calls": 0, "texts": 0, "tokens": 0}
        assert after["totals"]["embedding_avoided"] == before["totals"]["embedding_avoided"]
