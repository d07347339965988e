"""Expiry, promotion, jobs, rebuild, history and stats through the REST API."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.application.upkeep import archive_e_tier
from service.bootstrap import Runtime
from service.settings import Settings
from service.stores.embedder import SentenceTransformerEmbedder
from tests.fakes import FakeClock
from tests.http import LOCAL, problem, search, write
from tests.integration.test_api import OpenStores

ADMIN = {"Authorization": "Bearer admin-key-0123456789"}
AGENT = {"Authorization": "Bearer agent-key-0123456789"}
KEYS = "admin-key-0123456789=admin;agent-key-0123456789=agent"
DAY = 86_400


@pytest.fixture
def opened(tmp_path: Path, chroma_url: str, open_stores: OpenStores) -> Runtime:
    return open_stores(Settings().replace(data_dir=tmp_path, chroma_url=chroma_url, api_keys=KEYS))


@pytest.fixture
def client(opened: Runtime) -> Iterator[TestClient[Litestar]]:
    with TestClient(create_app(services=opened.services), base_url=LOCAL) as client:
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
    client: TestClient[Litestar], opened: Runtime, clock: FakeClock
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
    opened: Runtime,
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
    assert run_job(client, "archive_e_tier")["last_result"] == {
        "archived": 1,
        "deleted": 0,
        "digests": 1,
    }
    assert ids(search(client, "cron")) == ["new", "digest:2020-01-01:day"]
    assert set(ids(search(client, "cron", include_archived=True))) == {
        "old",
        "new",
        "digest:2020-01-01:day",
    }


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


def test_archived_logs_are_found_through_their_digest(
    client: TestClient[Litestar], clock: FakeClock
) -> None:
    midnight = clock.now - clock.now % DAY - 40 * DAY
    logs = [
        ("l1", "pytest tests/billing -x -q started", 9.0),
        ("l2", "ERROR OperationalError: relation invoices_v2 does not exist", 9.2),
        ("l3", "alembic upgrade head: migration 0042 moved the invoices table", 9.5),
        ("l4", "deployed billing-api@3fa9 to prod: 6/6 pods ready", 10.0),
    ]
    write(
        client,
        *[
            {
                "id": id,
                "tier": "E",
                "text": text,
                "speaker": "ci",
                "thread": "release-7",
                "tags": ["billing"],
                "timestamp": iso(midnight + hour * 3600),
            }
            for id, text, hour in logs
        ],
        {"id": "fresh", "tier": "E", "text": "invoices dashboard refreshed"},
    )
    first = run_job(client, "archive_e_tier")["last_result"]
    assert first == {"archived": 4, "deleted": 0, "digests": 1}
    assert run_job(client, "archive_e_tier")["last_result"] == {
        "archived": 0,
        "deleted": 0,
        "digests": 0,
    }

    found = search(client, "did we migrate the invoices table?")
    digests = [r for r in found["results"] if r["kind"] == "digest"]
    assert len(digests) == 1 and not {"l1", "l2", "l3", "l4"} & set(ids(found))
    digest = digests[0]
    assert (digest["tier"], digest["archived"], digest["speaker"], digest["tags"]) == (
        "E",
        True,
        "ci",
        ["billing"],
    )
    meta = digest["metadata"]["digest"]
    assert meta["sources"] == ["l1", "l2", "l3", "l4"] and meta["entries"] == 4
    assert meta["group"] == {"by": "thread", "value": "release-7"}
    assert "[09:30:00 ci id l3] alembic upgrade head" in digest["text"]
    # the ids fetch the originals while they exist
    original = client.get("/v1/entries/l3").json()
    assert (original["text"], original["archived"]) == (logs[2][1], True)
    # a search over archived time finds it; include_archived still returns the originals
    window = search(client, "invoices", since=iso(midnight), until=iso(midnight + DAY))
    assert ids(window) == [digest["id"]]
    archived = set(ids(search(client, "invoices table", include_archived=True, limit=20)))
    assert {"l2", "l3", digest["id"]} <= archived
    assert ids(search(client, "invoices", kind="digest")) == [digest["id"]]


def test_a_digest_is_found_by_one_of_its_lines_and_shows_that_line(
    client: TestClient[Litestar], opened: Runtime, clock: FakeClock
) -> None:
    midnight = clock.now - clock.now % DAY - 40 * DAY
    texts = [f"built wheel pkg{n}a for the nightly release" for n in range(25)]
    texts[12] = "alembic upgrade head moved the invoices table to the billing schema"
    write(
        client,
        *[
            {
                "id": f"l{n}",
                "tier": "E",
                "text": text,
                "speaker": "ci",
                "thread": "nightly-9",
                "timestamp": iso(midnight + 9 * 3600 + n * 60),
            }
            for n, text in enumerate(texts)
        ],
    )
    assert run_job(client, "archive_e_tier")["last_result"]["digests"] == 1
    line = (
        "[09:12:00 ci id l12] alembic upgrade head moved the invoices table to the billing schema"
    )

    def found() -> dict[str, Any]:
        results = search(client, "when did alembic move the invoices?", explain=True)["results"]
        assert [r["kind"] for r in results] == ["digest"]  # one hit: the digest, not its lines
        digest: dict[str, Any] = results[0]
        assert "l12" in digest["metadata"]["digest"]["sources"] and line in digest["text"]
        return digest

    archived = found()
    assert archived["snippet"] == line
    assert archived["explain"]["bm25"]["rank"] == 1
    # with the originals deleted (STRATA_E_DELETE_DAYS), the digest still finds the line
    deleted = archive_e_tier(
        clock.now,
        30,
        31,
        inventory=opened.stores.ledger,
        entries=opened.stores.ledger,
        writer=opened.memory.writer,
        lifecycle=opened.memory.lifecycle,
    )
    assert deleted["deleted"] == 25
    assert client.get("/v1/entries/l12").status_code == 404
    deleted = found()
    assert (deleted["id"], deleted["snippet"]) == (archived["id"], line)
    # a line matching several quoted lines still makes one hit, showing one of them
    several = search(client, "nightly release wheel", limit=10)["results"]
    assert [r["id"] for r in several] == [archived["id"]]
    assert several[0]["snippet"].startswith("[09:") and "wheel" in several[0]["snippet"]


def test_digests_are_the_services_to_write(client: TestClient[Litestar]) -> None:
    wrong_kind = client.post(
        "/v1/events", json={"events": [{"tier": "E", "text": "x", "kind": "digest"}]}
    )
    assert problem(wrong_kind, 422)["errors"][0]["field"] == "events[0].kind"
    wrong_id = client.post(
        "/v1/events", json={"events": [{"id": "digest:2020-01-01:day", "tier": "E", "text": "x"}]}
    )
    assert problem(wrong_id, 422)["errors"][0]["field"] == "events[0].id"
