"""A server killed mid-ingest loses no acknowledged write and duplicates nothing."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx

from tests.e2e.test_server import Server, killed_while_writing


def ingest_until_stopped(url: str, acked: list[str], stop: threading.Event) -> None:
    n = 0
    with httpx.Client(base_url=url, timeout=30) as client:
        while not stop.is_set():
            batch = [
                {
                    "id": f"ev{n + i}",
                    "tier": "ACE"[(n + i) % 3],
                    "text": f"event token{n + i} landed",
                }
                for i in range(10)
            ]
            try:
                response = client.post("/v1/events", json={"events": batch})
            except httpx.TransportError:
                return
            if response.status_code == 201:
                acked.extend(e["id"] for e in batch)
            n += 10


def test_sigkill_mid_ingest_loses_no_acknowledged_event(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = Server(data)
    acked: list[str] = []
    killed_while_writing(
        server, lambda done: ingest_until_stopped(server.url, acked, done), acked, 150
    )

    restarted = Server(data)
    try:
        with httpx.Client(base_url=restarted.url, timeout=30) as client:
            for event_id in acked:
                assert client.get(f"/v1/entries/{event_id}").status_code == 200, event_id
            for event_id in acked[::15]:
                token = f"token{event_id[2:]}"
                found = client.post("/v1/search", json={"query": token, "mode": "bm25"}).json()
                assert [r["id"] for r in found["results"]] == [event_id]
            stores = client.get("/health").json()["stores"]
        ledger = stores["ledger"]
        assert sum(ledger.values()) >= len(acked)
        assert stores["tantivy"] == sum(ledger.values())
        assert sum(stores["chroma"].values()) == ledger.get("A", 0) + ledger.get("C", 0)
    finally:
        restarted.stop()
