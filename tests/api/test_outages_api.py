"""Engines that go away: a search answers from keywords and says so, a write is kept, the
ledger away is a 503 to retry, and /health says which engine is down since when."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from service.domain.entries import StoredEntry, Tier
from service.domain.errors import EngineUnavailable
from service.domain.model import Filters, Hit
from service.settings import Settings
from tests.api.conftest import fake_stores, numbered
from tests.apps import serving
from tests.fakes import (
    FakeClock,
    FakeEmbedder,
    FakeFiles,
    FakeLedger,
    FakeVectorStore,
)
from tests.http import problem, search
from tests.http import write as write_events


class Outage:
    """The engines that are down, by name."""

    def __init__(self) -> None:
        self.down: set[str] = set()

    def check(self, engine: str) -> None:
        if engine in self.down:
            raise EngineUnavailable(engine, "connection refused")


class AwayVectorStore(FakeVectorStore):
    """The fake vector store, unreachable while its engine is down."""

    def __init__(self, outage: Outage) -> None:
        super().__init__()
        self.outage = outage

    def search(
        self, tier: Tier, vector: Sequence[float], filters: Filters, limit: int
    ) -> list[Hit]:
        self.outage.check("vector store")
        return super().search(tier, vector, filters, limit)

    def upsert(self, stored: Sequence[StoredEntry]) -> None:
        self.outage.check("vector store")
        super().upsert(stored)

    def delete(self, keys: Sequence[str]) -> None:
        self.outage.check("vector store")
        super().delete(keys)

    def health(self) -> str:
        self.outage.check("vector store")
        return super().health()

    def erase_namespace(self, namespace: str) -> None:
        self.outage.check("vector store")
        super().erase_namespace(namespace)


class AwayLedger(FakeLedger):
    """The fake ledger, unreachable while its engine is down."""

    def __init__(self, outage: Outage, clock: FakeClock) -> None:
        super().__init__(clock)
        self.outage = outage

    def put(self, stored: Sequence[StoredEntry], **options: Any) -> list[str]:
        self.outage.check("ledger")
        return super().put(stored, **options)

    def passages(self, keys: Sequence[str]) -> Any:
        self.outage.check("ledger")
        return super().passages(keys)

    def entry_page(self, namespace: str, after: str, limit: int) -> Any:
        self.outage.check("ledger")
        return super().entry_page(namespace, after, limit)

    def count(self) -> dict[str, int]:
        self.outage.check("ledger")
        return super().count()


class AwayEmbedder(FakeEmbedder):
    """The fake model, failing at run time while its engine is down."""

    def __init__(self, outage: Outage) -> None:
        super().__init__()
        self.outage = outage

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.outage.check("model")
        return super().embed(texts)


@pytest.fixture
def outage() -> Outage:
    return Outage()


@pytest.fixture
def runtime(outage: Outage, clock: FakeClock) -> Runtime:
    stores = fake_stores(
        clock,
        FakeFiles(),
        ledger=AwayLedger(outage, clock),
        vectors=AwayVectorStore(outage),
        embedder=AwayEmbedder(outage),
    )
    return numbered(Settings(), stores, clock)


@pytest.fixture
def client(runtime: Runtime) -> Iterator[TestClient[Litestar]]:
    with serving(runtime) as client:
        yield client


def write(client: TestClient[Litestar], id: str, text: str) -> dict[str, Any]:
    """One tier A entry written."""
    return write_events(client, {"id": id, "tier": "A", "text": text})


@pytest.mark.parametrize("engine", ["vector store", "model"])
@pytest.mark.parametrize("mode", ["hybrid", "vector", None])
def test_a_search_without_the_vector_side_answers_from_keywords(
    client: TestClient[Litestar], outage: Outage, engine: str, mode: str | None
) -> None:
    write(client, "1", "we moved the billing service to postgres")
    outage.down.add(engine)
    asked: dict[str, Any] = {"mode": mode} if mode else {}
    found = search(client, "billing postgres", **asked)
    assert [r["id"] for r in found["results"]] == ["1"]
    assert found["mode"] == "bm25"
    assert any(f"{engine} unavailable" in d for d in found["degraded"])


def test_a_write_while_the_vector_store_is_away_is_kept_and_found_by_keywords(
    client: TestClient[Litestar], runtime: Runtime, outage: Outage
) -> None:
    outage.down.add("vector store")
    written = write(client, "1", "the release train leaves on thursdays")
    assert written["indexed"] == 0  # acknowledged from the ledger
    assert [r["id"] for r in search(client, "release train")["results"]] == ["1"]
    outage.down.clear()
    assert runtime.memory.repair.recover().indexed == 1  # its vectors, now the store is back
    found = search(client, "release train", mode="vector")
    assert [r["id"] for r in found["results"]] == ["1"] and found["degraded"] == []


def test_a_write_while_the_model_fails_is_kept_without_vectors(
    client: TestClient[Litestar], runtime: Runtime, outage: Outage
) -> None:
    outage.down.add("model")
    written = write(client, "1", "the on-call rotation is weekly")
    assert (written["embedded"], written["indexed"]) == (0, 1)
    outage.down.clear()
    assert runtime.memory.repair.backfill() == 1
    assert [r["id"] for r in search(client, "on-call rotation", mode="vector")["results"]] == ["1"]


def test_the_ledger_away_is_a_503_to_retry(client: TestClient[Litestar], outage: Outage) -> None:
    write(client, "1", "kept before the outage")
    outage.down.add("ledger")
    for response in (
        client.post("/v1/events", json={"events": [{"tier": "A", "text": "during"}]}),
        client.post("/v1/search", json={"query": "kept outage"}),
    ):
        body = problem(response, 503)
        assert int(response.headers["Retry-After"]) >= 1
        assert "ledger unavailable" in body["detail"]
    outage.down.clear()
    assert [r["id"] for r in search(client, "kept outage")["results"]] == ["1"]


def test_health_says_which_engine_is_down_since_when(
    client: TestClient[Litestar], outage: Outage
) -> None:
    assert client.get("/health").json()["status"] == "ok"
    outage.down.add("vector store")
    first = client.get("/health").json()
    again = client.get("/health").json()
    assert again["status"] == "degraded"
    down = again["engines"]["vector_store"]
    assert down["state"] == "unavailable" and "connection refused" in down["error"]
    assert down["since"] == first["engines"]["vector_store"]["since"]  # the first failure
    assert again["engines"]["ledger"]["state"] == "ok"
    outage.down.clear()
    health = client.get("/health").json()
    assert health["status"] == "ok"
    assert health["engines"]["vector_store"] == {"state": "ok", "since": None, "error": None}


def test_a_reranker_nobody_asked_for_is_off_not_degraded(client: TestClient[Litestar]) -> None:
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["degraded"] == []
    assert health["engines"]["reranker"]["state"] == "off"


def test_an_erasure_with_the_vector_store_away_is_a_503_and_finishes_when_run_again(
    client: TestClient[Litestar], runtime: Runtime, outage: Outage
) -> None:
    write(client, "1", "the launch code is swordfish")
    outage.down.add("vector store")
    refused = client.delete("/v1/namespaces/default", params={"confirm": "default"})
    problem(refused, 503)
    assert int(refused.headers["Retry-After"]) >= 1
    outage.down.clear()
    erased = client.delete("/v1/namespaces/default", params={"confirm": "default"})
    assert erased.status_code == 200, erased.text
    assert search(client, "launch code swordfish")["results"] == []
    assert client.get("/v1/entries/1").status_code == 404


def test_an_export_with_the_ledger_away_is_a_503_and_one_cut_later_has_no_end_line(
    client: TestClient[Litestar], runtime: Runtime, outage: Outage
) -> None:
    for n in range(3):
        write(client, str(n), f"kept before the outage {n}")
    outage.down.add("ledger")
    refused = client.get("/v1/namespaces/default/export")
    problem(refused, 503)
    assert int(refused.headers["Retry-After"]) >= 1
    outage.down.clear()
    whole = client.get("/v1/namespaces/default/export").text.splitlines()
    assert json.loads(whole[-1])["record"] == "end"
    # The ledger goes away after the first page: the stream stops short of its end line.
    ledger = runtime.stores.ledger.wrapped  # type: ignore[attr-defined]

    def first_page_only(namespace: str, after: str, limit: int) -> Any:
        if after:
            outage.check("ledger")
        return FakeLedger.entry_page(ledger, namespace, after, 1)

    ledger.entry_page = first_page_only
    outage.down.add("ledger")
    cut = client.get("/v1/namespaces/default/export")
    assert cut.status_code == 200
    records = [json.loads(line)["record"] for line in cut.text.splitlines()]
    assert records == ["header", "entry"]


ANSWERING = ["/v1/retrieve", "/v1/context"]
"""The endpoints that answer a question from a search."""


@pytest.mark.parametrize("path", ANSWERING)
@pytest.mark.parametrize("engine", ["vector store", "model"])
def test_an_answer_without_the_vector_side_comes_from_keywords_and_says_so(
    client: TestClient[Litestar], outage: Outage, engine: str, path: str
) -> None:
    write(client, "1", "we moved the billing service to postgres")
    outage.down.add(engine)
    response = client.post(path, json={"question": "where does the billing service live?"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert any(f"{engine} unavailable" in d for d in body["degraded"])
    assert [e["id"] for e in body["entries"]] == ["1"]
    outage.down.clear()
    again = client.post(path, json={"question": "where does the billing service live?"}).json()
    assert again["degraded"] == []


@pytest.mark.parametrize("path", ANSWERING)
def test_an_answer_with_the_ledger_away_is_a_503_to_retry(
    client: TestClient[Litestar], outage: Outage, path: str
) -> None:
    write(client, "1", "kept before the outage")
    outage.down.add("ledger")
    response = client.post(path, json={"question": "what was kept before the outage?"})
    body = problem(response, 503)
    assert int(response.headers["Retry-After"]) >= 1
    assert "ledger unavailable" in body["detail"]
    outage.down.clear()
    answered = client.post(path, json={"question": "what was kept before the outage?"})
    assert answered.status_code == 200, answered.text
