"""Supersession, ``as_of`` and repeats over REST: what a client sends and sees."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import TestClient

from tests.fakes import FakeClock
from tests.http import AS_ADMIN, AS_AGENT, ids, problem, retrieve, search, write

DECIDED = "ledger database decision: use sqlite for the ledger"
REVISED = "ledger database decision: use postgres for the ledger, change log partitioned"
QUESTION = "ledger database decision"


def revise(client: TestClient[Litestar], clock: FakeClock) -> tuple[str, str, str]:
    """v1 decided, v2 replacing it an hour later; the moments before, between, after."""
    before = "2020-01-01T00:00:00Z"
    write(client, {"id": "v1", "tier": "A", "text": DECIDED, "type": "decision"})
    clock.advance(1800)
    between = present_time(clock)
    clock.advance(1800)
    written = write(client, {"id": "v2", "tier": "A", "text": REVISED, "supersedes": ["v1"]})
    assert written["written"] == [{"id": "v2", "supersedes": ["v1"]}]
    clock.advance(60)
    return before, between, present_time(clock)


def present_time(clock: FakeClock) -> str:
    from service.present.times import format_time

    return format_time(clock.now) or ""


def test_the_revision_replaces_the_decision_in_search_and_retrieve(
    client: TestClient[Litestar], clock: FakeClock
) -> None:
    revise(client, clock)
    assert ids(search(client, QUESTION)) == ["v2"]
    explained = search(client, QUESTION, explain=True)
    assert explained["superseded"] == [{"id": "v1", "superseded_by": "v2"}]
    assert search(client, QUESTION)["superseded"] == []
    shown = search(client, QUESTION, include_superseded=True)["results"]
    assert {(r["id"], r.get("superseded_by")) for r in shown} == {("v1", "v2"), ("v2", None)}

    answer = retrieve(client, QUESTION)
    assert [e["id"] for e in answer["entries"]] == ["v2"]
    (replaced,) = answer["entries"][0]["supersedes"]
    assert (replaced["id"], replaced["text"], replaced["actor"]) == ("v1", DECIDED, "local")


def test_the_entry_shows_its_chain_and_its_history(
    client: TestClient[Litestar], clock: FakeClock
) -> None:
    revise(client, clock)
    old = client.get("/v1/entries/v1").json()
    assert old["superseded_by"] == "v2"
    assert [r["id"] for r in old["replaced_by"]] == ["v2"]
    new = client.get("/v1/entries/v2").json()
    assert [r["id"] for r in new["supersedes"]] == ["v1"] and new["replaced_by"] == []
    history = client.get("/v1/entries/v1/history").json()["history"]
    assert history[-1]["action"] == "superseded" and history[-1]["detail"] == "v2"


def test_as_of_answers_with_memory_as_it_was(
    client: TestClient[Litestar], clock: FakeClock
) -> None:
    before, between, after = revise(client, clock)
    assert ids(search(client, QUESTION, as_of=before)) == []
    assert ids(search(client, QUESTION, as_of=between)) == ["v1"]
    assert ids(search(client, QUESTION, as_of=after)) == ["v2"]
    assert [e["id"] for e in retrieve(client, QUESTION, as_of=between)["entries"]] == ["v1"]
    bad = problem(client.post("/v1/search", json={"query": "x", "as_of": "yesterday"}), 422)
    assert bad["errors"][0]["field"] == "as_of"


def test_deleting_the_revision_reinstates_the_decision(
    client: TestClient[Litestar], clock: FakeClock
) -> None:
    revise(client, clock)
    assert client.delete("/v1/entries/v2").status_code == 200
    assert ids(search(client, QUESTION)) == ["v1"]
    assert client.get("/v1/entries/v1/history").json()["history"][-1]["action"] == "reinstated"


def test_unknown_ids_are_a_422_naming_them_and_nothing_is_written(
    client: TestClient[Litestar],
) -> None:
    response = client.post(
        "/v1/events",
        json={
            "events": [
                {"id": "a", "tier": "A", "text": "first"},
                {"id": "b", "tier": "A", "text": "second", "supersedes": ["ghost"]},
            ]
        },
    )
    body = problem(response, 422)
    assert body["errors"] == [
        {"field": "events[1].supersedes[0]", "message": "no entry 'ghost' in namespace 'default'"}
    ]
    assert client.get("/v1/entries/a").status_code == 404


def test_another_namespaces_entry_cannot_be_superseded(keyed: TestClient[Litestar]) -> None:
    write(keyed, {"id": "x", "tier": "A", "text": "red plan", "namespace": "red"}, headers=AS_ADMIN)
    response = keyed.post(
        "/v1/events",
        json={"events": [{"id": "y", "tier": "A", "text": "plan", "supersedes": ["x"]}]},
        headers=AS_AGENT,
    )
    body = problem(response, 422)
    assert body["errors"][0]["message"] == "no entry 'x' in namespace 'one'"
    assert (
        keyed.get("/v1/entries/x", params={"namespace": "red"}, headers=AS_ADMIN).json()[
            "superseded_by"
        ]
        is None
    )


def test_a_repeat_is_stored_once_and_a_close_one_is_named(client: TestClient[Litestar]) -> None:
    first = write(client, {"tier": "A", "text": DECIDED})
    again = write(client, {"tier": "A", "text": f"  {DECIDED.upper()} "})
    assert again["ids"] == first["ids"]
    assert again["written"] == [{"id": first["ids"][0], "duplicate_of": first["ids"][0]}]
    close = write(client, {"tier": "A", "text": REVISED})
    (similar,) = close["written"][0]["similar"]
    assert similar["id"] == first["ids"][0] and similar["tier"] == "A"
    assert len(ids(search(client, "ledger", include_superseded=True))) == 2


def test_the_daily_report_lists_the_decisions_revised_that_day(
    client: TestClient[Litestar], clock: FakeClock
) -> None:
    revise(client, clock)
    report = client.get("/v1/reports/daily").json()
    assert [(r["id"], r["superseded_by"], r["actor"]) for r in report["revisions"]] == [
        ("v1", "v2", "local")
    ]
    earlier = client.get("/v1/reports/daily", params={"date": "2020-01-01"}).json()
    assert earlier["revisions"] == []
