"""The relevance floor over the REST API, on fakes: results below STRATA_MIN_SCORE are left
out and counted, ``min_score`` 0 shows them, the relaxed retry keeps the floor, and a
retrieve with nothing above it answers nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from service.settings import RELEVANCE_FLOOR
from tests.api.conftest import serve
from tests.http import ids, retrieve, search, write

NOTES: list[dict[str, Any]] = [
    {"id": "note", "tier": "A", "text": "Lunch is at noon on Fridays."},
    {"id": "db", "tier": "A", "text": "We picked PostgreSQL for the billing database."},
    {"id": "log", "tier": "E", "text": "backup job ran at noon"},
]
NOTHING_HERE = "kubernetes upgrade plan"
"""A question the notes hold nothing about: its candidates all score near 0."""


def test_a_question_memory_holds_nothing_about_answers_nothing_and_counts_the_weak(
    client: TestClient[Litestar],
) -> None:
    write(client, *NOTES)
    found = search(client, NOTHING_HERE)
    assert found["results"] == [] and found["dropped"] == 2 and found["relaxed"] is False
    asked_so = search(client, NOTHING_HERE, min_score=None)
    assert (asked_so["results"], asked_so["dropped"]) == ([], 2), "null is the service's floor"
    everything = search(client, NOTHING_HERE, min_score=0)
    assert sorted(ids(everything)) == ["db", "note"] and everything["dropped"] == 0
    assert all(hit["score"] < RELEVANCE_FLOOR for hit in everything["results"])


def test_relevant_results_stay_and_the_weaker_ones_are_counted(
    client: TestClient[Litestar],
) -> None:
    write(client, *NOTES)
    found = search(client, "Which database did we pick for billing?")
    assert ids(found) == ["db"] and found["dropped"] == 1
    page = search(client, "Which database did we pick for billing?", limit=1)
    assert ids(page) == ["db"] and page["dropped"] == 0, "only results within the limit count"


def test_the_relaxed_retry_widens_the_tiers_but_keeps_the_floor(
    client: TestClient[Litestar],
) -> None:
    write(client, *NOTES)
    junk = search(client, NOTHING_HERE, tiers=["E"])
    assert (junk["results"], junk["relaxed"], junk["dropped"]) == ([], True, 2)
    lunch = search(client, "what is for lunch", tiers=["E"])
    assert ids(lunch) == ["note"] and lunch["relaxed"] is True and lunch["dropped"] == 1
    unfloored = search(client, NOTHING_HERE, tiers=["E"], min_score=0)
    assert sorted(ids(unfloored)) == ["db", "note"] and unfloored["relaxed"] is True


def test_the_floor_is_a_setting(runtime_for: Callable[..., Runtime]) -> None:
    for client in serve(runtime_for(min_score="0")):
        write(client, *NOTES)
        assert sorted(ids(search(client, NOTHING_HERE))) == ["db", "note"]
    for client in serve(runtime_for(min_score="1")):
        write(client, *NOTES)
        question = "Which database did we pick for billing?"
        found = search(client, question, min_score=None)
        assert found["results"] == [] and found["dropped"] == 2
        best = search(client, question, min_score=0)["results"][0]
        assert ids(search(client, question, min_score=best["score"])) == ["db"]


def test_a_retrieve_with_nothing_above_the_floor_answers_no_entries(
    client: TestClient[Litestar],
) -> None:
    write(client, *NOTES)
    answer = retrieve(client, NOTHING_HERE)
    assert answer["entries"] == [] and answer["best_relevance"] == 0.0
    assert answer["strong_match"] is False and answer["answer_confidence"] == 0.0
    found = retrieve(client, "Which database did we pick for billing?")
    assert [e["id"] for e in found["entries"]] == ["db"]


def test_a_context_keeps_to_the_floor_unless_asked_for_less(
    client: TestClient[Litestar],
) -> None:
    write(client, *NOTES)
    asked = {"question": NOTHING_HERE}
    floored = client.post("/v1/context", json=asked).json()
    assert floored["entries"] == [] and floored["nothing_relevant"] is True
    unfloored = client.post("/v1/context", json=asked | {"min_score": 0})
    assert unfloored.status_code == 200, unfloored.text
    assert {e["id"] for e in unfloored.json()["entries"]} == {"db", "note"}
    refused = client.post("/v1/context", json=asked | {"min_score": 2})
    assert refused.status_code == 422
