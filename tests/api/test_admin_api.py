"""Admin endpoints: roles, promotion, and the jobs as listed and run by hand."""

from __future__ import annotations

import socket
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from tests.http import AS_ADMIN, AS_AGENT, problem, write


def run_job(keyed: TestClient[Litestar], name: str) -> dict[str, Any]:
    response = keyed.post(f"/v1/admin/jobs/{name}/run", headers=AS_ADMIN)
    assert response.status_code == 200, response.text
    record: dict[str, Any] = response.json()
    return record


def test_admin_endpoints_need_an_admin_key(keyed: TestClient[Litestar]) -> None:
    for method, path in [
        ("post", "/v1/admin/promote"),
        ("get", "/v1/admin/jobs"),
        ("post", "/v1/admin/jobs/expire_c_tier/run"),
        ("post", "/v1/admin/rebuild"),
        ("get", "/v1/admin/rebuild"),
    ]:
        kwargs = {"json": {"ids": ["x"]}} if path.endswith("promote") else {}
        problem(getattr(keyed, method)(path, headers=AS_AGENT, **kwargs), 403)
        assert getattr(keyed, method)(path, **kwargs).status_code == 401


def test_jobs_are_listed_and_unknown_ones_are_404(keyed: TestClient[Litestar]) -> None:
    listed = keyed.get("/v1/admin/jobs", headers=AS_ADMIN).json()["jobs"]
    jobs = {j["name"]: j for j in listed}
    assert set(jobs) == {
        "expire_c_tier",
        "archive_e_tier",
        "optimize_indexes",
        "recover_pending",
        "backfill_embeddings",
        "trim_changes",
        "sweep_references",
    }
    assert jobs["expire_c_tier"]["schedule"] == "0 * * * *"
    assert (jobs["expire_c_tier"]["runs"], jobs["expire_c_tier"]["recent"]) == (0, [])
    assert [name for name, job in jobs.items() if job["per_replica"]] == ["optimize_indexes"]
    problem(keyed.post("/v1/admin/jobs/nope/run", headers=AS_ADMIN), 404)
    run = run_job(keyed, "optimize_indexes")
    assert (run["runs"], run["last_replica"]) == (1, f"{socket.gethostname()}:8080")
    assert [(r["replica"], r["slot"], r["error"]) for r in run["recent"]] == [
        (run["last_replica"], None, None)
    ]
    assert run["recent"][0]["started_at"] == run["last_started"]


def test_promote_names_each_bad_id_and_changes_nothing(keyed: TestClient[Litestar]) -> None:
    write(
        keyed,
        {"id": "talk", "tier": "C", "text": "we could shard by tenant", "namespace": "one"},
        {"id": "fact", "tier": "A", "text": "shards are per tenant", "namespace": "one"},
        headers=AS_ADMIN,
    )
    body = {"ids": ["talk", "fact", "ghost"], "namespace": "one"}
    found = problem(keyed.post("/v1/admin/promote", json=body, headers=AS_ADMIN), 422)
    assert [e["field"] for e in found["errors"]] == ["ids[1]", "ids[2]"]
    entry = keyed.get("/v1/entries/talk", params={"namespace": "one"}, headers=AS_ADMIN).json()
    assert entry["tier"] == "C"
    body = {"ids": ["talk", "talk"], "namespace": "one"}
    promoted = keyed.post("/v1/admin/promote", json=body, headers=AS_ADMIN).json()
    assert promoted == {"namespace": "one", "promoted": ["talk"]}
    history = keyed.get(
        "/v1/entries/talk/history", params={"namespace": "one"}, headers=AS_ADMIN
    ).json()["history"]
    assert [h["action"] for h in history] == ["created", "promoted"]


def test_rebuild_runs_in_the_background_and_reports_its_state(
    keyed: TestClient[Litestar], keyed_runtime: Runtime
) -> None:
    write(keyed, {"tier": "E", "text": "deploy ok", "namespace": "one"}, headers=AS_ADMIN)
    started = keyed.post("/v1/admin/rebuild", headers=AS_ADMIN)
    assert started.status_code == 202 and started.json()["total"] == 1
    keyed_runtime.rebuilder.wait(30)
    state = keyed.get("/v1/admin/rebuild", headers=AS_ADMIN).json()
    assert state["state"] == "done" and state["done"] == 1
