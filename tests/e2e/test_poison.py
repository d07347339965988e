"""Poison inputs against the real server: each is refused with a 4xx naming its field, the
server starts again, and every acknowledged write is found; a row the ledger holds that no
index takes is set aside, never a reason not to start."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.test_server import Server

POISONS: list[tuple[dict[str, Any], str]] = [
    ({"tier": "E", "text": "x", "timestamp": "9999-12-31T23:59:59-00:01"}, "timestamp"),
    ({"tier": "E", "text": "x", "timestamp": "0001-01-01T00:00:00+00:01"}, "timestamp"),
    ({"tier": "C", "text": "x", "timestamp": "9999-12-30T00:00:00Z"}, "timestamp"),
    (
        {"tier": "C", "text": "x", "timestamp": "9999-01-01T00:00:00Z", "ttl_days": 36500},
        "ttl_days",
    ),
    ({"tier": "E", "text": "x", "timestamp": "1969-12-31T23:59:59Z"}, "timestamp"),
    ({"tier": "A", "text": "x", "confidence": 1e308}, "confidence"),
    ({"tier": "A", "text": "x", "metadata": {"k" * 201: 1}}, "metadata"),
]


@pytest.mark.parametrize(("poison", "field"), POISONS)
def test_poison_events_are_refused_naming_the_field(
    server_url: str, poison: dict[str, Any], field: str
) -> None:
    good = {"id": "good", "tier": "E", "text": "deploy finished"}
    response = httpx.post(f"{server_url}/v1/events", json={"events": [good, poison]})
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    named = [e["field"] for e in body.get("errors", [])] or [body["detail"]]
    assert any(field in name for name in named), body
    assert httpx.get(f"{server_url}/v1/entries/good").status_code == 404


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Any:
    server = Server(tmp_path_factory.mktemp("poison") / "data")
    yield server.url
    server.stop()


def test_after_every_poison_the_server_starts_again_with_every_acknowledged_write(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    server = Server(data)
    acked: list[str] = []
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            for n, (poison, _) in enumerate(POISONS):
                good = {"id": f"good{n}", "tier": "ACE"[n % 3], "text": f"release token{n}"}
                assert client.post("/v1/events", json={"events": [good, poison]}).status_code == 422
                written = client.post("/v1/events", json={"events": [good]})
                assert written.status_code == 201, written.text
                acked.append(good["id"])
    finally:
        server.stop()

    # A row an older version stored, that no index can take: dated after 9999-12-31.
    with sqlite3.connect(data / "ledger.sqlite3") as db:
        db.execute(
            "UPDATE entries SET timestamp = 253402400000, state = 'pending' WHERE key = ?",
            ("default:good0",),
        )
    restarted = Server(data)
    try:
        with httpx.Client(base_url=restarted.url, timeout=60) as client:
            health = client.get("/health").json()
            assert health["stores"]["quarantined"] == 1, health
            aside = client.get("/v1/admin/quarantine").json()["entries"]
            assert [(q["id"], q["namespace"]) for q in aside] == [("good0", "default")]
            assert "outside 1970-01-01..9999-12-31" in aside[0]["reason"]
            for n, entry_id in enumerate(acked[1:], start=1):
                assert client.get(f"/v1/entries/{entry_id}").status_code == 200
                found = client.post("/v1/search", json={"query": f"token{n}", "mode": "bm25"})
                assert [r["id"] for r in found.json()["results"]] == [entry_id]
            # Writing the entry again takes it out of quarantine.
            again = {"id": "good0", "tier": "A", "text": "release token0"}
            assert client.post("/v1/events", json={"events": [again]}).status_code == 201
            assert client.get("/v1/admin/quarantine").json()["entries"] == []
            assert client.get("/v1/entries/good0").status_code == 200
    finally:
        restarted.stop()


def test_good_writes_beside_bad_ones_all_land(server_url: str) -> None:
    """Writers post at once, some of them poison: each good batch is acknowledged and found,
    each bad one refused, whatever group commit they share."""
    results: dict[str, int] = {}

    def post(name: str, events: list[dict[str, Any]]) -> None:
        with httpx.Client(base_url=server_url, timeout=60) as client:
            results[name] = client.post("/v1/events", json={"events": events}).status_code

    batches: dict[str, list[dict[str, Any]]] = {}
    for n in range(12):
        good = [
            {"id": f"c{n}-{i}", "tier": "ACE"[i % 3], "text": f"concurrent token{n}x{i}"}
            for i in range(3)
        ]
        batches[f"good{n}"] = good
        if n % 3 == 0:
            batches[f"bad{n}"] = [*good[:1], POISONS[n % len(POISONS)][0]]
    threads = [threading.Thread(target=post, args=item) for item in batches.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert {name: code for name, code in results.items() if name.startswith("bad")} == {
        name: 422 for name in batches if name.startswith("bad")
    }
    assert all(code == 201 for name, code in results.items() if name.startswith("good"))
    with httpx.Client(base_url=server_url, timeout=60) as client:
        for name, events in batches.items():
            if name.startswith("good"):
                for event in events:
                    token = event["text"].split()[-1]
                    found = client.post("/v1/search", json={"query": token, "mode": "bm25"})
                    assert [r["id"] for r in found.json()["results"]] == [event["id"]]
