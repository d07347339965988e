"""Engines failing under load: two replicas on a Postgres server and a Chroma server of
their own, two writers and two searchers (search, retrieve and context in turn) running
steadily, then Postgres restarted, Chroma stopped for ten seconds and started, a replica
SIGKILLed and started again.

What must hold: no answer is a 500 and none comes past its timeout (a replica being killed
refuses connections, which is no answer); every write acknowledged is kept and found on
both replicas afterwards; the vectors written while Chroma was away are in Chroma once a
recovery ran; ``/health`` said which engine was down while it was. The answers by status in
each phase are printed (``pytest -s`` shows them)."""

from __future__ import annotations

import collections
import itertools
import os
import signal
import threading
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.testing.engines import ChromaServer, TemporaryPostgres
from tests.e2e.test_cluster import ADMIN_KEY, Replica, until

pytestmark = pytest.mark.postgres

TIMEOUT_S = 20.0
"""The clients' timeout: well above the service's engine timeout (3 s here)."""
QUESTIONS: list[tuple[str, dict[str, Any]]] = [
    ("/v1/search", {"query": "rollout step", "mode": "hybrid"}),
    ("/v1/retrieve", {"question": "which step of the rollout came last?"}),
    ("/v1/context", {"question": "how far did the rollout get?", "max_tokens": 512}),
]
"""What the searchers ask, in turn: every endpoint that answers from a search."""


class Load:
    """Writers and searchers against the replicas, counting answers per phase."""

    def __init__(self, replicas: list[Replica]) -> None:
        self.replicas = replicas
        self.phase = "steady"
        self.answers: dict[str, collections.Counter[str]] = collections.defaultdict(
            collections.Counter
        )
        self.acked: list[tuple[str, str, str]] = []
        """(id, tier, unique word) of every write acknowledged."""
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._write, args=(n,)) for n in range(len(replicas))
        ] + [threading.Thread(target=self._search, args=(n,)) for n in range(len(replicas))]

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self._threads:
            thread.join(60)

    def _count(self, outcome: str) -> None:
        with self._lock:
            self.answers[self.phase][outcome] += 1

    def _call(self, n: int, path: str, body: dict[str, Any]) -> httpx.Response | None:
        replica = self.replicas[n]
        headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
        try:
            response = httpx.post(
                f"{replica.url}{path}", json=body, headers=headers, timeout=TIMEOUT_S
            )
        except httpx.TimeoutException:
            self._count("timeout")
            return None
        except httpx.TransportError:
            self._count("refused")  # a replica being killed and started again
            time.sleep(0.1)
            return None
        self._count(str(response.status_code))
        return response

    def _write(self, n: int) -> None:
        while not self.stop.is_set():
            word = f"w{uuid.uuid4().hex[:10]}"
            tier = "A" if len(self.acked) % 3 else "E"
            event = {"namespace": "faults", "tier": tier, "text": f"step {word} of the rollout"}
            response = self._call(n, "/v1/events", {"events": [event]})
            if response is not None and response.status_code == 201:
                with self._lock:
                    self.acked.append((response.json()["ids"][0], tier, word))
            time.sleep(0.05)

    def _search(self, n: int) -> None:
        asked = itertools.cycle(QUESTIONS)
        while not self.stop.is_set():
            path, body = next(asked)
            self._call(n, path, {"namespace": "faults", **body})
            time.sleep(0.05)


def caught_up(replica: Replica) -> bool:
    return bool(replica.health()["replica"]["changes_behind"] == 0)


def errors(replicas: list[Replica], answers: dict[str, collections.Counter[str]]) -> str:
    """The answers by phase and the lines of the replicas' logs about a 500 (the service's
    own "unhandled error" record first), for the message of a failed test."""
    found = [f"{phase}: {dict(sorted(counts.items()))}" for phase, counts in answers.items()]
    for marker in ("unhandled error", " 500 ", "status=500", "Traceback"):
        for replica in replicas:
            lines = replica.log.read_text(errors="replace").splitlines()
            found += [
                f"{replica.name}: " + "\n".join(lines[n : n + 60])
                for n, line in enumerate(lines)
                if marker in line
            ][:2]
        if len(found) > len(answers):
            break
    return "\n".join(found)


def test_no_500_and_no_lost_write_while_engines_fail_under_load(
    tmp_path: Path, engines: tuple[TemporaryPostgres, ChromaServer]
) -> None:
    postgres, chroma = engines
    env = {
        "STRATA_DATABASE_URL": f"postgresql://postgres@127.0.0.1:{postgres.port}/postgres",
        "STRATA_CHROMA_URL": chroma.url,
        "STRATA_API_KEYS": f"{ADMIN_KEY}=admin",
        "STRATA_RERANKER_MODEL": "",
        "STRATA_ENGINE_TIMEOUT": "3",
    }
    r1 = Replica("r1", tmp_path / "r1", env).wait_up()
    r2 = Replica("r2", tmp_path / "r2", env).wait_up()
    replicas = [r1, r2]
    processes = list(replicas)  # every replica started, the killed one too: its log counts
    said: dict[str, str] = {}
    try:
        with Load(replicas) as load:
            time.sleep(3)
            load.phase = "postgres restarted"
            postgres.pause()
            said["ledger"] = r1.health()["engines"]["ledger"]["state"]
            time.sleep(2)
            postgres.resume()
            time.sleep(3)
            load.phase = "chroma stopped"
            chroma.stop()
            time.sleep(1)
            said["vector_store"] = r1.health()["engines"]["vector_store"]["state"]
            time.sleep(9)
            chroma.start()
            time.sleep(2)
            load.phase = "replica killed"
            os.kill(r2.process.pid, signal.SIGKILL)
            r2.process.wait(30)
            r2.stop()
            r2 = Replica("r2", r2.data_dir, env).wait_up()
            load.replicas[1] = r2
            replicas[1] = r2
            processes.append(r2)
            time.sleep(3)
            load.phase = "after"
            time.sleep(2)

        for phase, answers in load.answers.items():
            print(f"\n{phase}: {dict(sorted(answers.items()))}")
        assert all(a["500"] == 0 and a["timeout"] == 0 for a in load.answers.values()), errors(
            processes, load.answers
        )
        assert said == {"ledger": "unavailable", "vector_store": "unavailable"}
        assert len(load.acked) > 20

        started = time.monotonic()
        run = r1.http.post("/v1/admin/jobs/recover_pending/run")
        assert run.status_code == 200, run.text
        print(f"recovery after the outage took {time.monotonic() - started:.1f} s")
        # Every vector the ledger holds is in Chroma: those written while it was away too
        # (a write the killed replica committed may have lost its answer: count the ledger's).
        stats = r1.http.get("/v1/stats").json()
        [faults] = [ns for ns in stats["namespaces"] if ns["namespace"] == "faults"]
        in_ledger = faults["tiers"]["A"]["vectors"]
        assert r1.health()["stores"]["chroma"]["A"] == in_ledger
        assert in_ledger >= sum(1 for _, tier, _ in load.acked if tier == "A")
        for replica in replicas:
            until(partial(caught_up, replica), 30)
            for entry, _, word in load.acked:
                assert replica.http.get(
                    f"/v1/entries/{entry}", params={"namespace": "faults"}
                ).is_success
                assert entry in replica.found("faults", word), (replica.name, word)
    finally:
        for replica in replicas:
            replica.stop()
