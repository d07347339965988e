"""What a question asks for, over the real model, Tantivy and Chroma, on SQLite and Postgres:
a decision first for a question that asks for one, plainly or in words of deciding, the log
line for a question about the log, and the turn of the one a question names before the turn
of someone who speaks of them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.bootstrap import Runtime
from service.domain.search.intent import KIND_FEATURES
from service.domain.search.learned import SHIPPED, LearnedFusion
from service.settings import Settings
from tests.http import LOCAL, ids, retrieve, search, write

OpenStores = Callable[[Settings], Runtime]

LEDGER = [
    {
        "id": "adr-7",
        "tier": "A",
        "type": "decision",
        "text": "ADR 7: PostgreSQL as the ledger database. We will keep the ledger's entries, "
        "their history and the change log in PostgreSQL, shared by every replica, "
        "instead of a SQLite file per process.",
        "timestamp": "2026-03-02T10:00:00Z",
    },
    {
        "id": "talk-1",
        "tier": "C",
        "text": "The ledger database keeps locking under load; should the ledger move to "
        "another database? PostgreSQL or MySQL would both do.",
    },
    {
        "id": "log-1",
        "tier": "E",
        "text": "ERROR ledger: database is locked (sqlite3.OperationalError) while writing "
        "a batch of 32 entries; retrying in 200ms",
        "timestamp": "2026-02-20T14:05:00Z",
    },
    {
        "id": "log-2",
        "tier": "E",
        "text": "Move the ledger tests to a throw-away PostgreSQL cluster on a free port",
        "timestamp": "2026-03-09T09:00:00Z",
    },
]
PLAIN = "which database does the ledger use?"
WORDED = "what did we decide about the ledger database?"
ABOUT_THE_LOG = "when did writes to the ledger fail because the database was locked?"
CONVERSATION = [
    {
        "id": "caroline-1",
        "tier": "E",
        "speaker": "Caroline",
        "text": "I went hiking up the ridge trail yesterday, the view was worth every step.",
    },
    {
        "id": "melanie-1",
        "tier": "E",
        "speaker": "Melanie",
        "text": "Caroline keeps talking about hiking the ridge trail; I hiked the ridge "
        "trail last spring with the kids.",
    },
]
ABOUT_CAROLINE = "When did Caroline go hiking on the ridge trail?"


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    if request.param == "sqlite":
        return Settings().replace(data_dir=tmp_path)
    request.node.add_marker(pytest.mark.postgres)
    return Settings().replace(
        data_dir=tmp_path,
        database_url=request.getfixturevalue("fresh_postgres_url"),
        chroma_url=request.getfixturevalue("chroma_server"),
    )


def client_for(resources: Runtime) -> Iterator[TestClient[Litestar]]:
    with TestClient(create_app(services=resources.services), base_url=LOCAL) as client:
        yield client


@pytest.fixture
def client(settings: Settings, open_stores: OpenStores) -> Iterator[TestClient[Litestar]]:
    yield from client_for(open_stores(settings))


def test_a_question_asking_for_a_decision_gets_it_first_plainly_or_worded(
    client: TestClient[Litestar],
) -> None:
    write(client, *LEDGER)
    for question in (PLAIN, WORDED):
        found = search(client, question, explain=True)
        assert ids(found)[0] == "adr-7", (question, ids(found))
        assert found["results"][0]["explain"]["intent"]["score"] > 0
        assert retrieve(client, question)["entries"][0]["id"] == "adr-7"


def test_a_question_about_the_log_gets_the_log_line_first(client: TestClient[Litestar]) -> None:
    write(client, *LEDGER)
    found = search(client, ABOUT_THE_LOG, explain=True)
    assert ids(found)[0] == "log-1", ids(found)
    assert retrieve(client, ABOUT_THE_LOG)["entries"][0]["id"] == "log-1"


def test_without_the_kind_features_the_plain_question_loses_the_decision(
    settings: Settings, open_stores: OpenStores, tmp_path: Path
) -> None:
    """The same model with its kind features taken out: the ranking the test above relies
    on is the intent's doing, not the words'."""
    raw = json.loads(SHIPPED.read_text(encoding="utf-8"))
    raw["weights"] = {k: v for k, v in raw["weights"].items() if k not in KIND_FEATURES}
    raw.pop("intent")
    blind = tmp_path / "blind-ranking.json"
    blind.write_text(json.dumps(raw), encoding="utf-8")
    for client in client_for(open_stores(settings.replace(ranking_model=str(blind)))):
        write(client, *LEDGER)
        assert ids(search(client, PLAIN))[0] != "adr-7"


def test_a_turn_of_the_one_a_question_names_comes_before_a_turn_about_them(
    client: TestClient[Litestar],
) -> None:
    write(client, *CONVERSATION)
    found = search(client, ABOUT_CAROLINE, explain=True)
    assert ids(found) == ["caroline-1", "melanie-1"]
    parts = [r["explain"].get("model.speaker_named", {}).get("score", 0) for r in found["results"]]
    assert parts[0] > 0 and parts[1] == 0


def test_without_the_speaker_feature_her_turn_leads_by_less(
    settings: Settings, open_stores: OpenStores
) -> None:
    """The same search scored by the model without ``speaker_named``: the turn of the one
    named keeps less of a lead over the turn that speaks of her."""
    runtime = open_stores(settings.replace(query_cache_size=0))
    fusion = runtime.searcher.fusion
    assert isinstance(fusion, LearnedFusion)

    def lead(client: TestClient[Litestar]) -> float:
        scores = {r["id"]: r["score"] for r in search(client, ABOUT_CAROLINE)["results"]}
        return float(scores["caroline-1"] / scores["melanie-1"])

    for client in client_for(runtime):
        write(client, *CONVERSATION)
        shipped = lead(client)
        weights = {k: v for k, v in fusion.model.weights.items() if k != "speaker_named"}
        fusion.model = replace(fusion.model, weights=weights)
        assert shipped > 1 and lead(client) < shipped
