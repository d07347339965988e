"""Two replicas of one cluster in one process: a shared Postgres and Chroma server, a data
directory each, driven over the REST API as their clients would."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.application import upkeep
from service.bootstrap import Runtime
from service.errors import Conflict
from service.jobs.scheduler import Scheduler
from service.settings import Settings
from tests.fakes import FakeClock
from tests.http import LOCAL, ids, problem, search, write

Replica = tuple[Runtime, TestClient[Litestar]]


def scheduler(runtime: Runtime) -> Scheduler:
    """The replica's scheduler, whose turns a test fires at a chosen moment."""
    assert isinstance(runtime.scheduler, Scheduler)
    return runtime.scheduler


@pytest.fixture
def replica(
    tmp_path: Path,
    postgres_url: str,
    chroma_server: str,
    open_stores: Callable[[Settings], Runtime],
) -> Iterator[Callable[[str], Replica]]:
    """Starts a replica named ``name``, with a data directory of its own."""
    with ExitStack() as clients:

        def start(name: str) -> Replica:
            settings = Settings().replace(
                data_dir=tmp_path / name,
                database_url=postgres_url,
                chroma_url=chroma_server,
                replica_name=name,
                jobs="off",
                collection_roots=str(tmp_path),
            )
            runtime = open_stores(settings)
            client = TestClient(create_app(services=runtime.services), base_url=LOCAL)
            return runtime, clients.enter_context(client)

        yield start


@pytest.fixture
def namespace() -> str:
    """A namespace of this test alone: the Chroma server outlives each test's database."""
    return f"c{uuid.uuid4().hex[:12]}"


def health(client: TestClient[Litestar]) -> dict[str, Any]:
    body: dict[str, Any] = client.get("/health").json()
    return body


def test_a_write_on_one_replica_is_found_on_the_other(
    replica: Callable[[str], Replica], clock: FakeClock, namespace: str
) -> None:
    (one, to_one), (two, to_two) = replica("one"), replica("two")
    ns = {"namespace": namespace}
    write(
        to_one,
        {"id": "db", "tier": "A", "text": "We decided to use PostgreSQL for billing.", **ns},
        {"id": "log", "tier": "E", "text": "billing-api deploy to staging: ok", **ns},
    )
    assert ids(search(to_one, "billing postgresql", namespace=namespace, min_score=0)) == [
        "db",
        "log",
    ]  # its own writes (the log line scores below the relevance floor)
    clock.advance(2)
    lag = health(to_two)["replica"]
    assert (lag["mode"], lag["name"], lag["lag_seconds"], lag["changes_behind"]) == (
        "cluster",
        "two",
        2.0,
        2,
    )
    assert two.follower is not None
    two.follower.catch_up()
    assert ids(search(to_two, "billing postgresql", mode="bm25", namespace=namespace)) == [
        "db",
        "log",
    ]
    assert ids(
        search(to_two, "which database for billing", mode="vector", namespace=namespace)
    ) == ["db"]
    assert health(to_two)["replica"]["changes_behind"] == 0

    deleted = to_two.delete("/v1/entries/db", params=ns)
    assert deleted.status_code == 200, deleted.text
    assert one.follower is not None
    one.follower.catch_up()
    assert ids(search(to_one, "billing postgresql", namespace=namespace)) == ["log"]


def test_digests_are_written_through_the_ledger_and_followed_by_the_other_replica(
    replica: Callable[[str], Replica], clock: FakeClock, namespace: str
) -> None:
    (one, to_one), (two, to_two) = replica("one"), replica("two")
    day = 86_400.0
    midnight = clock.now - clock.now % day - 40 * day
    write(
        to_one,
        *[
            {
                "id": f"l{n}",
                "tier": "E",
                "text": text,
                "namespace": namespace,
                "chain_type": "migration",
                "timestamp": datetime.fromtimestamp(midnight + 3600 * (9 + n), UTC).isoformat(),
            }
            for n, text in enumerate(
                ["alembic upgrade started", "invoices table migrated to v2 in 41 s"]
            )
        ],
    )
    assert two.follower is not None and one.follower is not None
    two.follower.catch_up()
    ran = to_two.post("/v1/admin/jobs/archive_e_tier/run").json()
    assert ran["last_result"] == {"archived": 2, "deleted": 0, "digests": 1}
    one.follower.catch_up()  # the job ran on two; one follows the ledger's changes
    found = search(to_one, "invoices migrated", namespace=namespace, mode="bm25")["results"]
    assert [(r["kind"], r["archived"]) for r in found] == [("digest", True)]
    assert found[0]["metadata"]["digest"]["sources"] == ["l0", "l1"]
    archived = search(to_one, "invoices migrated", namespace=namespace, include_archived=True)
    assert set(ids(archived)) == {"l1", found[0]["id"]}

    # originals deleted on two: one keeps the digest, and finds no original
    deleted = upkeep.archive_e_tier(
        clock.now,
        30,
        35,
        inventory=two.stores.ledger,
        entries=two.stores.ledger,
        writer=two.memory.writer,
        lifecycle=two.memory.lifecycle,
    )
    assert deleted == {"archived": 0, "deleted": 2, "digests": 0}
    one.follower.catch_up()
    archived = search(to_one, "invoices migrated", namespace=namespace, include_archived=True)
    assert ids(archived) == [found[0]["id"]]
    assert to_one.get(f"/v1/entries/l1?namespace={namespace}").status_code == 404


def test_the_cluster_runs_a_job_turn_once_and_a_held_job_is_refused_everywhere(
    replica: Callable[[str], Replica],
) -> None:
    (one, to_one), (two, to_two) = replica("one"), replica("two")
    slot = 1_800_003_600.0
    assert scheduler(one).fire("expire_c_tier", slot) is not None  # the first to try leads
    assert scheduler(two).fire("expire_c_tier", slot) is None
    assert (health(to_one)["replica"]["leads_jobs"], health(to_two)["replica"]["leads_jobs"]) == (
        True,
        False,
    )
    listed = {j["name"]: j for j in to_two.get("/v1/admin/jobs").json()["jobs"]}
    assert (listed["expire_c_tier"]["runs"], listed["expire_c_tier"]["last_replica"]) == (1, "one")

    with one.stores.coordination.job_lock("archive_e_tier") as held:
        assert held
        problem(to_two.post("/v1/admin/jobs/archive_e_tier/run"), 409)
        with pytest.raises(Conflict):
            two.scheduler.run("archive_e_tier")
    assert to_two.post("/v1/admin/jobs/archive_e_tier/run").json()["last_replica"] == "two"

    one.stores.coordination.close()  # the leader goes away: the other takes over
    deadline = time.monotonic() + 10  # once the server has ended the leader's session
    while scheduler(two).fire("expire_c_tier", slot + 3600) is None:
        assert time.monotonic() < deadline, "no replica took over within 10 s"
        time.sleep(0.05)
    assert health(to_two)["replica"]["leads_jobs"] is True


def test_documents_are_served_by_any_replica_and_scanned_where_the_folder_is(
    replica: Callable[[str], Replica], tmp_path: Path
) -> None:
    (_, to_one), (_, to_two) = replica("one"), replica("two")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "adr.md").write_text("# Event bus\n\nWe adopt NATS.\n")
    added = to_one.post("/v1/collections", json={"name": "notes", "path": str(notes)})
    assert added.status_code == 201, added.text
    (notes / "adr.md").unlink()
    notes.rmdir()  # as on a replica without the folder
    doc = to_two.get("/v1/documents", params={"path": "notes/adr.md", "from": 3}).json()
    assert (doc["title"], doc["text"]) == ("Event bus", "3| We adopt NATS.")
    refused = problem(to_two.post("/v1/collections/notes/update"), 409)
    assert str(notes) in refused["detail"]
    assert to_two.get("/v1/collections/notes").json()["files"] == 1


def test_a_supersession_on_one_replica_is_applied_on_the_other(
    replica: Callable[[str], Replica], namespace: str
) -> None:
    (one, to_one), (two, to_two) = replica("one"), replica("two")
    ns = {"namespace": namespace}
    question = "which database for the billing ledger"
    write(to_one, {"id": "v1", "tier": "A", "text": "Billing ledger: use SQLite.", **ns})
    assert two.follower is not None and one.follower is not None
    two.follower.catch_up()
    assert ids(search(to_two, question, namespace=namespace)) == ["v1"]  # cached there now

    revised = {"id": "v2", "tier": "A", "text": "Billing ledger: use PostgreSQL.", **ns}
    write(to_one, {**revised, "supersedes": ["v1"]})
    two.follower.catch_up()
    assert ids(search(to_two, question, namespace=namespace)) == ["v2"]
    shown = search(to_two, question, namespace=namespace, include_superseded=True)["results"]
    assert {r["id"]: r.get("superseded_by") for r in shown} == {"v1": "v2", "v2": None}

    assert to_two.delete("/v1/entries/v2", params=ns).status_code == 200
    one.follower.catch_up()
    assert ids(search(to_one, question, namespace=namespace)) == ["v1"]
