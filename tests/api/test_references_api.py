"""Reference questions through the REST API: recorded by a key of the namespace, from
feedback, listed and removed; swept, and the fit kept or rolled back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from service.domain.model.references import Fit
from tests.apps import serving
from tests.fakes import FakeClock
from tests.http import AS_ADMIN, AS_AGENT, KEYS, bearer, problem, write

TEAM = [
    {"id": "emb", "tier": "A", "text": "We embed only decisions and recent discussions"},
    {"id": "db", "tier": "A", "text": "Postgres is the shared ledger of the replicas"},
    {"id": "log", "tier": "E", "text": "deploy finished in 42 seconds"},
]


def record(client: TestClient[Litestar], headers: dict[str, str], **body: Any) -> Any:
    return client.post("/v1/references", json={"namespace": "one", **body}, headers=headers)


def test_a_key_of_the_namespace_records_a_reference_and_lists_it(
    keyed: TestClient[Litestar],
) -> None:
    write(keyed, *({**e, "namespace": "one"} for e in TEAM), headers=AS_ADMIN)
    made = record(keyed, AS_AGENT, question="What do we embed?", answers=["emb", "emb"])
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["answers"] == ["emb"] and body["nothing"] is False
    assert body["source"] == "agent" and body["namespace"] == "one" and body["id"]
    nothing = record(keyed, AS_ADMIN, question="Who won the match?", nothing=True).json()
    assert nothing["answers"] == [] and nothing["nothing"] and nothing["source"] == "admin"
    listed = keyed.get("/v1/references", params={"namespace": "one"}, headers=AS_AGENT).json()
    assert listed["total"] == 2
    assert [r["question"] for r in listed["references"]] == [
        "What do we embed?",
        "Who won the match?",
    ]
    second = keyed.get("/v1/references?namespace=one&offset=1&limit=1", headers=AS_AGENT)
    assert [r["id"] for r in second.json()["references"]] == [nothing["id"]]


def test_a_reference_names_entries_of_its_namespace_or_says_nothing_answers(
    keyed: TestClient[Litestar],
) -> None:
    write(keyed, *({**e, "namespace": "one"} for e in TEAM), headers=AS_ADMIN)
    write(keyed, {"id": "theirs", "tier": "A", "text": "x", "namespace": "two"}, headers=AS_ADMIN)
    neither = problem(record(keyed, AS_ADMIN, question="What do we embed?"), 422)
    assert neither["errors"][0]["field"] == "answers"
    both = record(keyed, AS_ADMIN, question="What?", answers=["emb"], nothing=True)
    assert problem(both, 422)["errors"][0]["field"] == "answers"
    unknown = record(keyed, AS_ADMIN, question="What?", answers=["emb", "nope", "theirs"])
    errors = problem(unknown, 422)["errors"]
    assert [e["field"] for e in errors] == ["answers[1]", "answers[2]"]
    blank = problem(record(keyed, AS_ADMIN, question="   ", nothing=True), 422)
    assert blank["errors"][0]["field"] == "question"
    bad_id = record(keyed, AS_ADMIN, question="What?", answers=["has space"])
    assert problem(bad_id, 422)["errors"][0]["field"] == "answers[0]"
    listed = keyed.get("/v1/references?namespace=one", headers=AS_ADMIN).json()
    assert listed == {"references": [], "total": 0}


def test_a_key_records_and_lists_only_in_its_namespaces_and_only_admins_remove(
    keyed: TestClient[Litestar],
) -> None:
    write(keyed, *({**e, "namespace": "one"} for e in TEAM), headers=AS_ADMIN)
    elsewhere = keyed.post(
        "/v1/references",
        json={"namespace": "two", "question": "What?", "nothing": True},
        headers=AS_AGENT,
    )
    problem(elsewhere, 403)
    problem(keyed.get("/v1/references?namespace=two", headers=AS_AGENT), 403)
    made = record(keyed, AS_AGENT, question="What do we embed?", answers=["emb"]).json()
    path = f"/v1/references/{made['id']}?namespace=one"
    problem(keyed.delete(path, headers=AS_AGENT), 403)
    assert keyed.delete(path, headers=AS_ADMIN).status_code == 204
    problem(keyed.delete(path, headers=AS_ADMIN), 404)
    assert keyed.get("/v1/references?namespace=one", headers=AS_ADMIN).json()["total"] == 0


def test_feedback_naming_answers_or_nothing_records_the_question_as_a_reference(
    keyed: TestClient[Litestar],
) -> None:
    write(keyed, *({**e, "namespace": "one"} for e in TEAM), headers=AS_ADMIN)
    asked = keyed.post(
        "/v1/retrieve", json={"question": "what do we embed?", "namespace": "one"}, headers=AS_AGENT
    ).json()
    interaction = asked["interaction_id"]
    assert asked["calibration"]["source"] == "shipped"

    def feedback(**body: Any) -> Any:
        return keyed.post(
            "/v1/feedback", json={"interaction_id": interaction, **body}, headers=AS_AGENT
        )

    plain = feedback(rating="up").json()
    assert plain["reference_id"] is None
    up_nothing = feedback(rating="up", nothing=True)
    assert problem(up_nothing, 422)["errors"][0]["field"] == "nothing"
    problem(feedback(rating="down", answers=["nope"]), 422)
    listed = keyed.get("/v1/references?namespace=one", headers=AS_ADMIN).json()
    assert listed["total"] == 0  # refused feedback records nothing
    down = feedback(rating="down", answers=["emb"], comment="this one").json()
    assert down["reference_id"]
    listed = keyed.get("/v1/references?namespace=one", headers=AS_ADMIN).json()
    assert [(r["question"], r["answers"], r["source"]) for r in listed["references"]] == [
        ("what do we embed?", ["emb"], "feedback")
    ]


def test_a_sweep_without_references_keeps_the_shipped_calibration(
    keyed: TestClient[Litestar],
) -> None:
    write(keyed, *({**e, "namespace": "one"} for e in TEAM), headers=AS_ADMIN)
    record(keyed, AS_ADMIN, question="What do we embed?", answers=["emb"])
    problem(keyed.post("/v1/admin/sweep", json={"namespace": "one"}, headers=AS_AGENT), 403)
    swept = keyed.post("/v1/admin/sweep", json={"namespace": "one"}, headers=AS_ADMIN)
    assert swept.status_code == 200, swept.text
    body = swept.json()
    assert body["references"] == 1 and body["answerable"] == 1 and body["kept"] is False
    assert body["before"] == body["after"] and body["after"]["source"] == "shipped"
    assert "too few" in body["reason"] and body["held_out"] == {}
    assert [o["question"] for o in body["outcomes"]] == ["What do we embed?"]
    assert len(body["thresholds"]) == 91 and body["floors"][0]["floor"] == 0.0
    listed = keyed.get("/v1/admin/calibrations?namespace=one", headers=AS_ADMIN).json()
    assert listed["fits"] == [] and listed["references"] == 1
    assert listed["in_force"]["source"] == "shipped"
    rollback = {"namespace": "one", "version": 2}
    problem(keyed.post("/v1/admin/calibrations/rollback", json=rollback, headers=AS_ADMIN), 404)
    shipped = {"namespace": "one", "version": 0}
    back = keyed.post("/v1/admin/calibrations/rollback", json=shipped, headers=AS_ADMIN)
    assert back.status_code == 200 and back.json()["source"] == "shipped"


def test_the_daily_report_tells_the_references_recorded_and_the_fits_kept(
    keyed_runtime: Runtime, keyed: TestClient[Litestar], clock: FakeClock
) -> None:
    write(keyed, *({**e, "namespace": "one"} for e in TEAM), headers=AS_ADMIN)
    record(keyed, AS_ADMIN, question="What do we embed?", answers=["emb"])
    record(keyed, AS_AGENT, question="Who won the match?", nothing=True)
    asked = {"namespace": "one", "question": "what do we embed?"}
    interaction = keyed.post("/v1/retrieve", json=asked, headers=AS_AGENT).json()
    rated = {"interaction_id": interaction["interaction_id"], "rating": "up", "answers": ["emb"]}
    assert keyed.post("/v1/feedback", json=rated, headers=AS_AGENT).status_code == 201
    ledger, now = keyed_runtime.stores.ledger, keyed_runtime.services.answers.clock()
    held = {"youden_j": 0.5, "no_result": 1.0, "top10_cost": 0.0}
    figures = {"references": 3, "held_out": {"in_force": held, "fitted": {**held, "youden_j": 0.8}}}
    ledger.add_fit(Fit("one", 0, 0.6, 0.002, now, "admin", figures))
    replaced = {"threshold": 0.6, "floor": 0.002, "scope": "namespace", "version": 1}
    ledger.add_fit(Fit("one", 0, 0.5, 0.003, now, "admin", {**figures, "replaced": replaced}))
    ledger.add_fit(Fit("one", 0, 0.4, 0.003, now - 86_400, "admin", figures))  # the day before

    report = keyed.get("/v1/reports/daily?namespace=one", headers=AS_ADMIN).json()
    assert report["references"] == {"admin": 1, "agent": 1, "feedback": 1}
    assert report["references_total"] == 3
    changes = report["calibrations"]
    assert [(c["fit"]["version"], c["fit"]["threshold"]) for c in changes] == [(1, 0.6), (2, 0.5)]
    assert changes[0]["replaced"] == {
        "source": "shipped",
        "version": 0,
        "threshold": 0.73,
        "floor": 0.002,
    }
    assert changes[1]["replaced"]["version"] == 1 and changes[1]["replaced"]["threshold"] == 0.6
    assert changes[1]["fit"]["held_out"]["fitted"]["youden_j"] == 0.8
    assert [c["fit"]["in_force"] for c in changes] == [False, False]  # version 3 is
    elsewhere = keyed.get("/v1/reports/daily?namespace=two", headers=AS_ADMIN).json()
    assert elsewhere["references"] == {} and elsewhere["calibrations"] == []
    day = report["date"]
    clock.advance(86_400)
    record(keyed, AS_ADMIN, question="Where is the ledger?", answers=["db"])
    then = keyed.get(f"/v1/reports/daily?namespace=one&date={day}", headers=AS_ADMIN).json()
    assert then["references_total"] == 3  # as that day ended
    now = keyed.get("/v1/reports/daily?namespace=one", headers=AS_ADMIN).json()
    assert now["references"] == {"admin": 1} and now["references_total"] == 4


def test_a_sweep_counts_no_search_and_no_model_work(keyed: TestClient[Litestar]) -> None:
    write(keyed, *({**e, "namespace": "one"} for e in TEAM), headers=AS_ADMIN)
    for n in range(3):
        record(keyed, AS_ADMIN, question=f"what do we embed, {n}?", answers=["emb"])
    asked = {"namespace": "one", "question": "what do we embed?"}
    assert keyed.post("/v1/retrieve", json=asked, headers=AS_ADMIN).status_code == 200
    before = keyed.get("/v1/stats", headers=AS_ADMIN).json()["read_time"]["queries"]
    assert before["calls"] >= 1
    swept = keyed.post("/v1/admin/sweep", json={"namespace": "one"}, headers=AS_ADMIN).json()
    assert swept["references"] == 3
    assert keyed.get("/v1/stats", headers=AS_ADMIN).json()["read_time"]["queries"] == before
    report = keyed.get("/v1/reports/daily?namespace=one", headers=AS_ADMIN).json()
    assert report["questions"] == 1  # the sweep's questions are not logged


def test_the_deployments_calibration_is_swept_from_every_namespace_and_serves_the_rest(
    keyed_runtime: Runtime, keyed: TestClient[Litestar], clock: FakeClock
) -> None:
    for namespace in ("one", "two"):
        write(keyed, *({**e, "namespace": namespace} for e in TEAM), headers=AS_ADMIN)
        body = {"namespace": namespace, "question": "What do we embed?", "answers": ["emb"]}
        assert keyed.post("/v1/references", json=body, headers=AS_ADMIN).status_code == 201
    whole = {"deployment": True}
    problem(keyed.post("/v1/admin/sweep", json=whole, headers=AS_AGENT), 403)
    both = {"deployment": True, "namespace": "one"}
    refused = problem(keyed.post("/v1/admin/sweep", json=both, headers=AS_ADMIN), 422)
    assert refused["errors"][0]["field"] == "deployment"
    swept = keyed.post("/v1/admin/sweep", json=whole, headers=AS_ADMIN).json()
    assert swept["namespace"] == "" and swept["references"] == 2 and not swept["kept"]
    listed = keyed.get("/v1/admin/calibrations?deployment=true", headers=AS_ADMIN).json()
    assert listed["namespace"] == "" and listed["references"] == 2 and listed["fits"] == []

    # A deployment's fit serves the namespaces without one of their own.
    ledger = keyed_runtime.stores.ledger
    ledger.add_fit(Fit("", 0, 0.5, 0.003, clock.now, "admin", {"references": 2}))
    ledger.add_fit(Fit("two", 0, 0.6, 0.002, clock.now, "admin", {"references": 1}))
    keyed_runtime.services.answers.answerer.tunings.forget()
    asked = {"question": "what do we embed?"}
    one = keyed.post("/v1/retrieve", json={**asked, "namespace": "one"}, headers=AS_ADMIN)
    two = keyed.post("/v1/retrieve", json={**asked, "namespace": "two"}, headers=AS_ADMIN)
    assert one.json()["calibration"] == {
        "source": "deployment",
        "version": 1,
        "threshold": 0.5,
        "floor": 0.003,
    }
    assert two.json()["calibration"]["source"] == "namespace"
    listed = keyed.get("/v1/admin/calibrations?deployment=true", headers=AS_ADMIN).json()
    assert listed["in_force"]["source"] == "deployment" and listed["fits"][0]["in_force"]
    back = {"deployment": True, "version": 0}
    rolled = keyed.post("/v1/admin/calibrations/rollback", json=back, headers=AS_ADMIN)
    assert rolled.json()["source"] == "shipped"
    again = keyed.post("/v1/retrieve", json={**asked, "namespace": "one"}, headers=AS_ADMIN)
    assert again.json()["calibration"]["source"] == "shipped"
    missing = {"deployment": True, "version": 7}
    problem(keyed.post("/v1/admin/calibrations/rollback", json=missing, headers=AS_ADMIN), 404)


def test_an_admin_key_of_some_namespaces_leaves_the_deployments_calibration_alone(
    runtime_for: Callable[..., Runtime],
) -> None:
    scoped = "scoped-admin-key-0123"
    with serving(runtime_for(api_keys=f"{scoped}=admin:one")) as client:
        as_scoped = bearer(scoped)
        whole = {"deployment": True}
        problem(client.post("/v1/admin/sweep", json=whole, headers=as_scoped), 403)
        problem(client.get("/v1/admin/calibrations?deployment=true", headers=as_scoped), 403)
        back = {"deployment": True, "version": 0}
        problem(client.post("/v1/admin/calibrations/rollback", json=back, headers=as_scoped), 403)
        own = client.post("/v1/admin/sweep", json={"namespace": "one"}, headers=as_scoped)
        assert own.status_code == 200 and own.json()["namespace"] == "one"


def test_a_rollback_to_a_version_past_any_kept_is_refused(keyed: TestClient[Litestar]) -> None:
    for body in ({"version": 2**31 - 1, "namespace": "one"}, {"version": 3, "deployment": True}):
        problem(keyed.post("/v1/admin/calibrations/rollback", json=body, headers=AS_ADMIN), 404)
    huge = {"version": 2**64, "deployment": True}
    refused = problem(
        keyed.post("/v1/admin/calibrations/rollback", json=huge, headers=AS_ADMIN), 422
    )
    assert refused["errors"][0]["field"] == "version"


def test_the_scheduled_sweep_asks_a_namespace_once_enough_new_references_came_in(
    runtime_for: Callable[..., Runtime], clock: FakeClock
) -> None:
    with serving(runtime_for(api_keys=KEYS, sweep_after="2")) as client:
        write(client, *({**e, "namespace": "one"} for e in TEAM), headers=AS_ADMIN)

        def run() -> Any:
            clock.advance(60)
            done = client.post("/v1/admin/jobs/sweep_references/run", headers=AS_ADMIN)
            assert done.status_code == 200, done.text
            return done.json()["last_result"]

        record(client, AS_ADMIN, question="What do we embed?", answers=["emb"])
        assert run() == {"swept": 0, "kept": []}
        record(client, AS_ADMIN, question="Where is the ledger?", answers=["db"])
        assert run() == {"swept": 1, "kept": []}  # two references: too few to fit
        assert run() == {"swept": 0, "kept": []}  # nothing new since
        for n in range(2):
            record(client, AS_ADMIN, question=f"The office wifi, {n}?", nothing=True)
        assert run() == {"swept": 1, "kept": []}
        whole = client.get("/v1/admin/calibrations?deployment=true", headers=AS_ADMIN).json()
        assert whole["fits"] == [] and whole["in_force"]["source"] == "shipped"


def test_a_question_a_reference_asks_gets_its_verdict_in_its_namespace_only(
    keyed: TestClient[Litestar],
) -> None:
    for namespace in ("one", "two"):
        write(keyed, *({**e, "namespace": namespace} for e in TEAM), headers=AS_ADMIN)

    def ask(path: str, question: str, namespace: str = "one") -> Any:
        body = {"namespace": namespace, "question": question}
        response = keyed.post(path, json=body, headers=AS_AGENT if namespace == "one" else AS_ADMIN)
        assert response.status_code == 200, response.text
        return response.json()

    first = ask("/v1/retrieve", "What do we embed?")
    assert first["reference_id"] is None and first["answer_confidence"] > 0
    down = {"interaction_id": first["interaction_id"], "rating": "down", "nothing": True}
    reference = keyed.post("/v1/feedback", json=down, headers=AS_AGENT).json()["reference_id"]
    for path in ("/v1/retrieve", "/v1/context"):
        judged = ask(path, "  what do we EMBED ")
        assert (judged["strong_match"], judged["answer_confidence"]) == (False, 0.0)
        assert judged["reference_id"] == reference
    assert ask("/v1/retrieve", "What do we embed?", "two")["reference_id"] is None

    named = record(keyed, AS_AGENT, question="Which deploy took 42 seconds?", answers=["log"])
    answered = ask("/v1/retrieve", "Which deploy took 42 seconds?")
    assert answered["entries"][0]["id"] == "log"
    assert (answered["strong_match"], answered["answer_confidence"]) == (True, 1.0)
    assert answered["reference_id"] == named.json()["id"]
