"""Retrieve, feedback, the daily report and the routine check over real stores and model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.settings import Settings
from tests.fakes import FakeClock
from tests.http import ADMIN, AGENT_ONE, DECISIONS, retrieve, write
from tests.integration.test_api import OpenStores, client_for

DAY = 86_400


@pytest.fixture
def client(
    tmp_path: Path, chroma_url: str, open_stores: OpenStores
) -> Iterator[TestClient[Litestar]]:
    yield from client_for(open_stores(Settings().replace(data_dir=tmp_path, chroma_url=chroma_url)))


@pytest.fixture
def keyed(tmp_path: Path, open_stores: OpenStores) -> Iterator[TestClient[Litestar]]:
    keys = f"{ADMIN}=admin;{AGENT_ONE}=agent:one"
    yield from client_for(open_stores(Settings().replace(data_dir=tmp_path, api_keys=keys)))


def test_retrieve_answers_with_entries_verdict_and_patterns(client: TestClient[Litestar]) -> None:
    write(client, *DECISIONS)
    found = retrieve(client, "Which database did we pick for billing?", asker="pm-bot")
    top = found["entries"][0]
    assert top["id"] == "db"
    assert top["type"] == "decision" and top["confidence"] == 0.9
    assert 0 <= top["relevance_score"] <= 1 and 0 <= top["score"] <= 1
    assert 0 <= top["parts"]["relevance"] <= 1
    assert 0 <= found["answer_confidence"] <= 1
    assert found["strong_match"] is (found["answer_confidence"] >= found["threshold"])
    assert "how" not in [e["id"] for e in found["entries"]]
    patterns = found["reasoning_patterns"]
    assert [p["id"] for p in patterns] == ["how"]
    assert patterns[0]["kind"] == "pattern"
    assert patterns[0]["variants"] == DECISIONS[3]["variants"]
    assert found["interaction_id"]


def test_strong_match_separates_a_direct_answer_from_an_unrelated_question(
    client: TestClient[Litestar],
) -> None:
    write(client, *DECISIONS)
    direct = retrieve(client, "Did we decide to use PostgreSQL for the billing service?")
    unrelated = retrieve(client, "Who won the football world cup in 1998?")
    assert direct["answer_confidence"] > unrelated["answer_confidence"]
    assert direct["strong_match"] is True
    assert unrelated["strong_match"] is False


def test_a_question_asked_where_memory_never_recorded_it_has_low_confidence(
    client: TestClient[Litestar],
) -> None:
    write(client, *DECISIONS)
    write(
        client,
        *(
            {"id": f"k{n}", "tier": "A", "text": text, "namespace": "kitchen"}
            for n, text in enumerate(
                [
                    "We settled on sourdough for the Friday bread.",
                    "The oven runs hot: bake the billing-day cake at 170 degrees.",
                    "Service starts at noon; the database of recipes is in the blue binder.",
                ]
            )
        ),
    )
    question = "Did we decide to use PostgreSQL for the billing service?"
    home = retrieve(client, question)
    elsewhere = retrieve(client, question, namespace="kitchen")
    # Words in common ("decide", "billing", "database"), but nothing that answers: the
    # candidates' evidence says so, and the relevance floor leaves none of them.
    assert elsewhere["entries"] == []
    assert elsewhere["strong_match"] is False
    assert elsewhere["answer_confidence"] < 0.3 < home["answer_confidence"]


def test_tier_e_entries_get_a_relevance_too(client: TestClient[Litestar]) -> None:
    write(client, *DECISIONS)
    found = retrieve(client, "deploy billing-api to staging", top_n=10)
    log = next(e for e in found["entries"] if e["id"] == "log1")
    others = [e["relevance_score"] for e in found["entries"] if e["id"] != "log1"]
    assert log["relevance_score"] > max(others)


def test_feedback_and_the_daily_report(client: TestClient[Litestar], clock: FakeClock) -> None:
    write(client, *DECISIONS)
    first = retrieve(client, "Did we decide to use PostgreSQL for billing?", asker="pm-bot")
    missed = retrieve(client, "Who won the football world cup in 1998?", asker="dev-bot")
    rated = client.post(
        "/v1/feedback", json={"interaction_id": first["interaction_id"], "rating": "up"}
    )
    assert rated.status_code == 201, rated.text
    assert rated.json()["rating"] == "up"
    client.post(
        "/v1/feedback",
        json={"interaction_id": missed["interaction_id"], "rating": "down", "comment": "off"},
    ).raise_for_status()
    report = client.get("/v1/reports/daily").json()
    assert report["questions"] == 2
    assert report["feedback"] == {"up": 1, "down": 1}
    assert report["strong_matches"] == 1 and report["strong_match_rate"] == 0.5
    assert [q["question"] for q in report["unanswered"]] == [
        "Who won the football world cup in 1998?"
    ]
    assert report["unanswered"][0]["asker"] == "dev-bot"
    tomorrow = client.get("/v1/reports/daily", params={"date": "2027-01-16"}).json()
    assert tomorrow["questions"] == 0 and tomorrow["strong_match_rate"] is None


def test_routine_check_counts_similar_executions(client: TestClient[Litestar]) -> None:
    write(
        client,
        *[{"tier": "E", "text": f"deploy billing-api v2.3.{n} to staging: ok"} for n in range(6)],
        {"tier": "E", "text": "rotate the TLS certificate of the ingress"},
    )
    check = client.post("/v1/routine-check", json={"task": "deploy billing-api to staging"}).json()
    assert check["similar"] == 6
    assert check["is_routine"] is True
    assert all(e["similarity"] >= check["similarity_threshold"] for e in check["examples"])
    rare = client.post("/v1/routine-check", json={"task": "rotate the TLS certificate"}).json()
    assert rare["is_routine"] is False and rare["similar"] <= 1


def test_search_relaxes_a_filter_that_finds_nothing(client: TestClient[Litestar]) -> None:
    write(client, *DECISIONS)
    strict = client.post(
        "/v1/search", json={"query": "PostgreSQL billing", "tiers": ["C"], "min_score": 0.99}
    ).json()
    assert strict["relaxed"] is True
    assert strict["results"][0]["id"] == "db"
    off = client.post(
        "/v1/search",
        json={"query": "PostgreSQL billing", "tiers": ["C"], "min_score": 0.99, "relax": False},
    ).json()
    assert off["results"] == [] and off["relaxed"] is False


def test_search_by_kind(client: TestClient[Litestar]) -> None:
    write(client, *DECISIONS)
    found = client.post("/v1/search", json={"query": "datastore", "kind": "pattern"}).json()
    assert [r["id"] for r in found["results"]] == ["how"]


def test_a_reply_is_found_by_what_it_answers(client: TestClient[Litestar]) -> None:
    write(
        client,
        {
            "id": "q",
            "tier": "E",
            "text": "Which city for the offsite?",
            "speaker": "ann",
            "thread": "chat-1",
        },
        {"id": "a", "tier": "E", "text": "Lisbon, in May.", "speaker": "bob", "thread": "chat-1"},
    )
    assert client.get("/v1/entries/a").json()["thread"] == "chat-1"
    found = client.post("/v1/search", json={"query": "offsite city", "mode": "bm25"}).json()
    assert {r["id"] for r in found["results"]} == {"q", "a"}
    said_by_bob = client.post("/v1/search", json={"query": "what did bob say", "mode": "bm25"})
    assert said_by_bob.json()["results"][0]["id"] == "a"
