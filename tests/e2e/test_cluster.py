"""A cluster of real server processes: replicas on one Postgres database and one Chroma
server, driven over HTTP on loopback.

The module starts one Chroma server and two replicas (``a`` and ``b``) on a database schema
of its own and keeps them for every test; tests that kill a replica or start an empty one
start those of their own. Measured replication lags are printed (``pytest -s`` shows them).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from schemas.vocabulary import RECALL_HEADER
from service.testing.engines import ChromaServer, free_port, stop_process, wait_until_up
from service.testing.scripted_upstream import ScriptedUpstream
from tests import postgres
from tests.e2e.test_server import killed_while_writing

ADMIN_KEY = "cluster-admin-key-0123456789"
LAG_BOUND_S = 5.0
"""The most a change made on one replica may take to reach another's search."""
EVERY_MINUTE = "* * * * *"


class Replica:
    """``strata serve`` as one replica of the cluster, on a free loopback port."""

    def __init__(self, name: str, data_dir: Path, env: dict[str, str]) -> None:
        self.name = name
        self.data_dir = data_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = data_dir.parent / f"{name}-{self.port}.log"
        command = [sys.executable, "-m", "service", "serve", "--port", str(self.port)]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [*command, "--data-dir", str(data_dir)],
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, **env, "STRATA_REPLICA_NAME": name},
            )
        self.http = httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {ADMIN_KEY}"}, timeout=30
        )

    def wait_up(self) -> Replica:
        try:
            wait_until_up(f"{self.url}/health", self.process)
        except RuntimeError:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        stop_process(self.process)
        self.http.close()

    def health(self) -> dict[str, Any]:
        return dict(self.http.get("/health").json())

    def write(self, namespace: str, events: list[dict[str, Any]]) -> list[str]:
        body = {"events": [{"namespace": namespace, **event} for event in events]}
        response = self.http.post("/v1/events", json=body)
        assert response.status_code == 201, response.text
        return list(response.json()["ids"])

    def search(
        self,
        namespace: str,
        query: str,
        headers: dict[str, str] | None = None,
        **fields: Any,
    ) -> list[dict[str, Any]]:
        body = {"namespace": namespace, "query": query, "mode": "bm25", "limit": 20, "relax": False}
        body.update(fields)
        response = self.http.post("/v1/search", json=body, headers=headers)
        assert response.status_code == 200, response.text
        return list(response.json()["results"])

    def found(
        self, namespace: str, query: str, headers: dict[str, str] | None = None, **fields: Any
    ) -> set[str]:
        return {hit["id"] for hit in self.search(namespace, query, headers, **fields)}

    def jobs(self) -> dict[str, dict[str, Any]]:
        return {job["name"]: job for job in self.http.get("/v1/admin/jobs").json()["jobs"]}


@dataclass
class Cluster:
    """What the module shares: the replicas' settings and the two long-lived replicas."""

    env: dict[str, str]
    root: Path
    started: float = 0.0
    """When every replica of ``replicas`` was up."""
    replicas: list[Replica] = field(default_factory=list)

    def start(self, *names: str) -> list[Replica]:
        """Start replicas side by side (each with a new data directory) and wait for them."""
        started = [Replica(n, self.root / f"{n}-{uuid.uuid4().hex[:6]}", self.env) for n in names]
        try:
            return [replica.wait_up() for replica in started]
        except BaseException:
            for replica in started:
                replica.stop()
            raise


def until(check: Callable[[], bool], bound: float = LAG_BOUND_S) -> float:
    """Seconds until ``check()`` holds, polled every 20 ms; fails past ``bound``."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > bound:
            pytest.fail(f"not within {bound} s")
        time.sleep(0.02)
    return time.monotonic() - started


@pytest.fixture(scope="module")
def cluster(
    postgres_database: postgres.TestDatabase, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    """Replicas ``a`` and ``b`` on a database schema of their own and a Chroma server of
    their own, with two cheap jobs scheduled every minute."""
    root = tmp_path_factory.mktemp("cluster")
    chroma = ChromaServer(root / "chroma")
    env = {
        "STRATA_DATABASE_URL": postgres_database.new_schema(),
        "STRATA_CHROMA_URL": chroma.start(),
        "STRATA_API_KEYS": f"{ADMIN_KEY}=admin",
        "STRATA_RERANKER_MODEL": "",
        "STRATA_RECOVER_CRON": EVERY_MINUTE,
        "STRATA_EXPIRE_C_CRON": EVERY_MINUTE,
    }
    running = Cluster(env, root)
    try:
        running.replicas = running.start("a", "b")
        running.started = time.time()
        yield running
    finally:
        for replica in running.replicas:
            replica.stop()
        chroma.stop()


@pytest.fixture(scope="module")
def a(cluster: Cluster) -> Replica:
    return cluster.replicas[0]


@pytest.fixture(scope="module")
def b(cluster: Cluster) -> Replica:
    return cluster.replicas[1]


def test_health_names_each_replica_its_lag_and_the_one_leader(a: Replica, b: Replica) -> None:
    replicas = {r.name: r.health()["replica"] for r in (a, b)}
    assert {name: r["name"] for name, r in replicas.items()} == {"a": "a", "b": "b"}
    assert all(r["mode"] == "cluster" for r in replicas.values())
    assert all(r["lag_seconds"] >= 0 and r["changes_behind"] >= 0 for r in replicas.values())
    assert sorted(r["leads_jobs"] for r in replicas.values()) == [False, True]
    for replica in (a, b):
        assert not [d for d in replica.health()["degraded"] if "ledger" in d or "log" in d]


def test_a_write_acknowledged_by_one_replica_is_searchable_on_the_other(
    a: Replica, b: Replica
) -> None:
    lags = []
    for n in range(5):
        word = f"quokka{n}frame"
        [written] = a.write("lag", [{"tier": "A", "text": f"The {word} protocol was approved."}])

        def arrived(word: str = word, written: str = written) -> bool:
            return written in b.found("lag", word)

        lags.append(until(arrived))
    print(f"\nreplication lag a -> b (bm25 search): median {statistics.median(lags):.3f} s, "
          f"max {max(lags):.3f} s over {len(lags)} writes")  # fmt: skip
    # The vectors are on the shared Chroma server: the other replica's vector search has them.
    hits = b.search("lag", "which framing protocol was approved?", mode="vector")
    assert written in {hit["id"] for hit in hits}
    assert b.health()["replica"]["changes_behind"] == 0


def test_promotion_and_deletion_on_one_replica_reach_the_other(a: Replica, b: Replica) -> None:
    [entry] = a.write("lifecycle", [{"tier": "C", "text": "Standup: wombat migration is late."}])
    until(lambda: entry in b.found("lifecycle", "wombat migration", tiers=["C"]))

    promoted = b.http.post("/v1/admin/promote", json={"ids": [entry], "namespace": "lifecycle"})
    assert promoted.json()["promoted"] == [entry]
    got = a.http.get(f"/v1/entries/{entry}", params={"namespace": "lifecycle"}).json()
    assert (got["tier"], got["expires_at"]) == ("A", None)
    until(lambda: entry in a.found("lifecycle", "wombat migration", tiers=["A"]))
    assert entry not in a.found("lifecycle", "wombat migration", tiers=["C"])
    vector = a.search("lifecycle", "wombat migration", mode="vector", tiers=["A"])
    assert entry in {hit["id"] for hit in vector}

    deleted = a.http.delete(f"/v1/entries/{entry}", params={"namespace": "lifecycle"})
    assert deleted.json()["deleted"] is True
    assert b.http.get(f"/v1/entries/{entry}", params={"namespace": "lifecycle"}).status_code == 404
    until(lambda: entry not in b.found("lifecycle", "wombat migration"))
    assert entry not in {h["id"] for h in b.search("lifecycle", "wombat", mode="vector")}


def test_an_empty_replica_rebuilds_its_index_from_postgres_without_embedding(
    cluster: Cluster, a: Replica
) -> None:
    [entry] = a.write("fresh", [{"tier": "A", "text": "The numbat cache holds tokens."}])
    until(lambda: a.health()["replica"]["changes_behind"] == 0)
    before = a.health()["stores"]
    vectors = a.http.get("/v1/stats").json()["totals"]["vectors"]

    [d] = cluster.start("d")
    try:
        health = d.health()
        assert health["stores"]["tantivy"] == sum(health["stores"]["ledger"].values())
        assert health["stores"]["tantivy"] == before["tantivy"]
        assert health["stores"]["chroma"] == before["chroma"]
        assert d.http.get("/v1/stats").json()["totals"]["vectors"] == vectors
        assert entry in d.found("fresh", "numbat cache")
        [hit] = d.search("fresh", "where are tokens cached?", mode="hybrid", limit=1, explain=True)
        assert hit["id"] == entry and hit["explain"]["vector"]["rank"] == 1
        assert "keyword index rebuilt from the ledger" in d.log.read_text()
        assert a.health()["stores"]["chroma"] == before["chroma"], "nothing was embedded again"
    finally:
        d.stop()


def ingest_until_killed(replica: Replica, acked: list[list[str]], stop: threading.Event) -> None:
    """Batches of ten events (tiers A and E) to ``replica`` until it stops answering; each
    batch acknowledged is appended to ``acked``."""
    batch = 0
    with httpx.Client(base_url=replica.url, headers=replica.http.headers, timeout=30) as http:
        while not stop.is_set():
            events = [
                {
                    "namespace": "crash",
                    "tier": "AEEEE"[i % 5],
                    "text": f"deploy step {i} of crashbatch{batch} done",
                }
                for i in range(10)
            ]
            try:
                response = http.post("/v1/events", json={"events": events})
            except httpx.TransportError:
                return
            if response.status_code == 201:
                acked.append(response.json()["ids"])
            batch += 1


def test_kill_9_mid_ingest_loses_no_acknowledged_write(cluster: Cluster, a: Replica) -> None:
    # After the tests that compare the shared Chroma's counts: the batch the kill cuts
    # short is indexed by a later recover turn, whenever it comes.
    [c] = cluster.start("c")
    acked: list[list[str]] = []
    killed_while_writing(c, lambda done: ingest_until_killed(c, acked, done), acked, 15)

    lag = until(lambda: set(acked[-1]) <= a.found("crash", f"crashbatch{len(acked) - 1}"))
    print(
        f"\n{len(acked)} batches acknowledged before kill -9; "
        f"the last searchable on a after {lag:.3f} s"
    )
    for n, ids in enumerate(acked):
        assert set(ids) <= a.found("crash", f"crashbatch{n}"), n
        for entry in ids:
            assert a.http.get(f"/v1/entries/{entry}", params={"namespace": "crash"}).is_success

    restarted = Replica("c", c.data_dir, cluster.env).wait_up()
    try:
        until(lambda: restarted.health()["replica"]["changes_behind"] == 0)
        for n, ids in enumerate(acked):
            assert set(ids) <= restarted.found("crash", f"crashbatch{n}"), n
    finally:
        restarted.stop()


def test_each_replica_asks_the_upstream_and_a_kept_hit_reaches_the_other(
    cluster: Cluster,
) -> None:
    kb = {"id": "kb-7", "text": "Invoices are archived after 7 years.", "score": 0.8}
    upstream = ScriptedUpstream([kb])
    env = {
        "STRATA_UPSTREAM_URL": upstream.url,
        "STRATA_UPSTREAM_NAME": "kb",
        "STRATA_UPSTREAM_STORE": "on",
        "STRATA_UPSTREAM_FAILURES": "1",
    }
    asking = Cluster({**cluster.env, **env}, cluster.root)
    u1, u2 = asking.start("u1", "u2")
    try:
        for replica, namespace in ((u1, "recall-1"), (u2, "recall-2")):
            [hit] = replica.search(namespace, "invoices archived")
            assert (hit["source"], hit["id"]) == ("upstream", "kb-7")
            assert hit["upstream"] == {"name": "kb", "namespace": namespace, "id": "kb-7"}
        assert [r["namespace"] for r in upstream.requests] == ["recall-1", "recall-2"]

        # What u1 kept is a local entry of the cluster: u2 finds it without asking. (Until
        # u2 has applied the change, its searches find nothing: marked as recalls, they
        # do not ask the upstream meanwhile.)
        quiet = {RECALL_HEADER: "1"}
        until(lambda: "kb:kb-7" in u2.found("recall-1", "invoices archived", headers=quiet))
        [hit] = u2.search("recall-1", "invoices archived")
        assert (hit["id"], hit.get("source", "local")) == ("kb:kb-7", "local")
        assert upstream.count == 2
        kept = u2.http.get("/v1/entries/kb:kb-7", params={"namespace": "recall-1"}).json()
        assert kept["metadata"]["upstream_id"] == "kb-7"

        # Each replica has a breaker of its own: one failing on u1 leaves u2's closed.
        upstream.behaviour = "fail"
        u1.search("recall-3", "invoices archived")
        states = {r.name: r.health()["upstream"]["breaker"]["state"] for r in (u1, u2)}
        assert states == {"u1": "open", "u2": "closed"}
    finally:
        u1.stop()
        u2.stop()
        upstream.close()


def away_from_a_turn() -> float:
    """Wait until 5 s past a whole minute (when the every-minute jobs' turns are done) if
    within 5 s of one; returns the last whole minute."""
    into = time.time() % 60
    if into < 5 or into > 55:
        time.sleep((65 - into) % 60)
    return time.time() // 60 * 60


def test_a_scheduled_job_runs_once_per_turn_on_the_leading_replica(
    cluster: Cluster, a: Replica, b: Replica
) -> None:
    first = (cluster.started // 60 + 1) * 60  # the first turn every replica fired
    time.sleep(max(0.0, first + 5 - time.time()))
    last = away_from_a_turn()
    leader = next(r.name for r in (a, b) if r.health()["replica"]["leads_jobs"])
    histories = [r.jobs() for r in (a, b)]
    for name in ("recover_pending", "expire_c_tier"):
        seen = [
            {k: jobs[name][k] for k in ("runs", "recent", "last_replica", "last_result")}
            for jobs in histories
        ]
        assert seen[0] == seen[1], "every replica reports the same history"
        runs = seen[0]["recent"]
        slots = sorted(run["slot"] for run in runs)
        assert len(slots) == len(set(slots)) == min(seen[0]["runs"], 5), runs
        assert slots[-1] == time.strftime("%Y-%m-%dT%H:%M:00Z", time.gmtime(last)), runs
        assert {run["replica"] for run in runs} == {leader}
        assert all(run["finished_at"] and not run["error"] for run in runs)
