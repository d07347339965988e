"""Retrieve, feedback and the daily report: validation, and interactions kept to their namespace."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from tests.http import ADMIN, AGENT_ONE, DECISIONS, problem, retrieve, write

STORED = ("entries", "vectors", "tokens_embedded", "tokens_full_rag", "quarantined")
"""What the stats count of what is stored (the rest is read-time work)."""


def stored(client: TestClient[Litestar]) -> dict[str, Any]:
    totals = client.get("/v1/stats").json()["totals"]
    return {k: totals[k] for k in STORED}


def test_retrieve_never_writes_knowledge(client: TestClient[Litestar]) -> None:
    write(client, *DECISIONS)
    before = stored(client)
    retrieve(client, "Which database did we pick for billing?")
    assert stored(client) == before


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/retrieve", {"question": "  "}, "question"),
        ("/v1/retrieve", {"question": "x", "top_n": 0}, "top_n"),
        ("/v1/retrieve", {"question": "x", "colour": 1}, "body"),
        ("/v1/feedback", {"interaction_id": "x", "rating": "meh"}, "rating"),
        ("/v1/routine-check", {"task": ""}, "task"),
    ],
)
def test_bad_answer_requests_name_the_field(
    client: TestClient[Litestar], path: str, body: dict[str, Any], field: str
) -> None:
    found = problem(client.post(path, json=body), 422)
    fields = [e["field"] for e in found.get("errors", [])]
    assert field in fields or field in found["detail"]


def test_bad_report_date_and_unknown_interaction(client: TestClient[Litestar]) -> None:
    problem(client.get("/v1/reports/daily", params={"date": "yesterday"}), 422)
    problem(client.post("/v1/feedback", json={"interaction_id": "nope", "rating": "up"}), 404)


def test_interactions_stay_in_their_namespace(keyed: TestClient[Litestar]) -> None:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    agent = {"Authorization": f"Bearer {AGENT_ONE}"}
    write(keyed, {**DECISIONS[0], "namespace": "two"}, headers=admin)
    theirs = keyed.post(
        "/v1/retrieve", json={"question": "billing database", "namespace": "two"}, headers=admin
    ).json()
    assert theirs["entries"][0]["id"] == "db"
    mine = keyed.post("/v1/retrieve", json={"question": "billing database"}, headers=agent)
    assert mine.status_code == 200 and mine.json()["entries"] == []
    stolen = keyed.post(
        "/v1/feedback",
        json={"interaction_id": theirs["interaction_id"], "rating": "down"},
        headers=agent,
    )
    problem(stolen, 404)
    problem(keyed.get("/v1/reports/daily", params={"namespace": "two"}, headers=agent), 403)
    assert keyed.get("/v1/reports/daily", headers=agent).json()["questions"] == 1
