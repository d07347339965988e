"""Real engines going away under a service sharing a Postgres database and a Chroma server:
searches answer from keywords while Chroma is stopped, writes are kept and get their vectors
once it is back, a Postgres restart fails no request, and Postgres stopped is a prompt 503
to retry, then the service answers again by itself."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from service.settings import Settings
from service.stores.embedder import SentenceTransformerEmbedder
from service.testing.engines import ChromaServer, TemporaryPostgres
from tests.apps import served_runtime
from tests.http import problem, search
from tests.http import write as write_events

pytestmark = pytest.mark.postgres


@pytest.fixture
def served(
    engines: tuple[TemporaryPostgres, ChromaServer],
    tmp_path: Path,
    embedder: SentenceTransformerEmbedder,
) -> Iterator[tuple[TestClient[Litestar], Runtime]]:
    postgres, chroma = engines
    settings = Settings().replace(
        data_dir=tmp_path / "data",
        database_url=f"postgresql://postgres@127.0.0.1:{postgres.port}/postgres",
        chroma_url=chroma.url,
        jobs="off",
        engine_timeout=3.0,
    )
    with served_runtime(settings, embedder) as (runtime, client):
        yield client, runtime


def write(client: TestClient[Litestar], id: str, text: str) -> dict[str, Any]:
    """One tier A entry written."""
    return write_events(client, {"id": id, "tier": "A", "text": text})


def test_engines_going_away_degrade_and_recover(
    served: tuple[TestClient[Litestar], Runtime], engines: tuple[TemporaryPostgres, ChromaServer]
) -> None:
    postgres, chroma = engines
    client, runtime = served
    assert write(client, "1", "we chose postgres for the billing ledger")["indexed"] == 1

    chroma.stop()
    found = search(client, "billing ledger database")
    assert [r["id"] for r in found["results"]] == ["1"] and found["mode"] == "bm25"
    assert any("vector store unavailable" in d for d in found["degraded"])
    kept = write(client, "2", "the billing ledger is backed up nightly")
    assert kept["indexed"] == 0  # acknowledged from the ledger
    assert "2" in [r["id"] for r in search(client, "backed up nightly")["results"]]
    health = client.get("/health").json()
    assert health["engines"]["vector_store"]["state"] == "unavailable"

    chroma.start()  # on its port, with its data
    assert runtime.memory.repair.recover().indexed == 1
    found = search(client, "when is the ledger backed up", mode="vector")
    assert found["degraded"] == [] and "2" in [r["id"] for r in found["results"]]

    postgres.pause()
    postgres.resume()  # every pooled connection is now dead: each is replaced, none fails
    assert "1" in [r["id"] for r in search(client, "postgres billing", mode="bm25")["results"]]
    assert write(client, "3", "after the restart")["indexed"] == 1

    postgres.pause()
    started = time.monotonic()
    response = client.post("/v1/search", json={"query": "postgres billing"})
    problem(response, 503)
    assert int(response.headers["Retry-After"]) >= 1
    problem(client.post("/v1/events", json={"events": [{"tier": "A", "text": "lost?"}]}), 503)
    assert time.monotonic() - started < 30  # bounded, never a hang
    assert client.get("/health").json()["engines"]["ledger"]["state"] == "unavailable"
    postgres.resume()
    assert write(client, "4", "back again")["indexed"] == 1
    assert client.get("/health").json()["engines"]["ledger"]["state"] == "ok"
