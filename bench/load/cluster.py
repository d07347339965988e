"""Cluster mode of the load benchmark (``python -m bench.load --cluster``).

Everything runs on this machine, started by the benchmark: a PostgreSQL server (``initdb``
in a temporary folder, with the server's durable defaults: fsync and synchronous commits
on), a ``chroma run`` server per setup, and strata replicas. Per corpus size:

1. **SQLite ledger, one process**: a replica with its ledger in SQLite files (WAL,
   ``synchronous=FULL``) and its vectors on a Chroma server of its own. The workload is
   ingested, ``expire_c_tier`` run once, then every mode is searched at each concurrency.
2. **Postgres ledger, one replica**: the same with ``STRATA_DATABASE_URL`` on the Postgres
   server (a second Chroma server): the ledger's cost, all else equal. Same queries.
3. **Postgres ledger, two replicas**: a second replica starts with an empty data directory
   (its keyword index rebuilt from Postgres: timed, and its size measured); the searches
   go round-robin to the two (the load client alternates base URLs, request by request;
   no load balancer process), with other queries than setup 2's, so no query cache hits.
   Then replication lag: an event written to one replica, the other's BM25 search polled
   until it finds it, idle and while another client ingests into the first replica.

CPU seconds per search are read from /proc (user + system time of each server process
and its children, before and after each cell): the strata replicas, the PostgreSQL
server's processes and the Chroma server, each divided by the searches of the cell. The
load client runs on the same cores, as in the single-process run.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.common import REQUEST_TIMEOUT_S, auth_headers, tree_bytes
from bench.engines import ChromaServer, TemporaryPostgres, create_database, find_binaries
from bench.load.cells import Cell, Outcome, print_progress, run_cell
from bench.load.ingest import ingest, ingest_short, post_events
from bench.load.processes import ReplicaProcess, postmaster_pid, tree_cpu
from bench.load.queries import Query, QueryPlan, Reservoir
from bench.load.service import JOB_TIMEOUT_S, RESERVOIR, service_search
from bench.load.workload import Workload
from bench.server import proc_memory, service_commit, service_settings

LAG_PROBES = 30
"""Events written to measure replication lag, idle and again under ingest."""
LAG_BOUND_S = 30.0
"""A probe not found on the other replica by then counts as lost."""
FOLLOW_S = 10.0
"""Seconds of ingest over which a follower's CPU per change is measured."""
PROBE_PAUSE_S = 0.5
"""The longest random pause before a probe (more than the replicas' poll interval)."""
BACKGROUND_BATCH = 200
"""Events per request of the ingest that runs while lag is probed under load."""


class Servers:
    """The Postgres server of a run and what it needs to measure it."""

    def __init__(self, root: Path) -> None:
        binaries = find_binaries()
        if binaries is None:
            raise RuntimeError(
                "the cluster benchmark starts a PostgreSQL server: install initdb and pg_ctl "
                "(apt-get install postgresql)"
            )
        self.postgres = TemporaryPostgres(binaries, durable=True)
        self.url = create_database(self.postgres.start(), "strata_bench")
        self.root = root
        version = _query(self.url, "SHOW server_version")
        print(f"PostgreSQL {version} at {self.postgres.port}", file=sys.stderr)
        self.version = str(version)

    def postgres_pids(self) -> list[int]:
        pid = postmaster_pid(self.postgres.data)
        return [pid] if pid else []

    def database_bytes(self) -> int:
        return int(_query(self.url, "SELECT pg_database_size(current_database())"))

    def stop(self) -> None:
        self.postgres.stop()


def _query(url: str, sql: str) -> Any:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(sql.encode()).fetchone()
    return row[0] if row else None


def run_cluster(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every setup at every corpus size of ``args.entries``."""
    return [run_cluster_size(args, entries) for entries in args.entries]


def run_cluster_size(args: argparse.Namespace, entries: int) -> dict[str, Any]:
    settings = service_settings()
    key = args.api_key or f"bench-{uuid.uuid4().hex}"
    env = {
        "STRATA_JOBS": "off",
        "STRATA_RERANKER_MODEL": "",
        "STRATA_API_KEYS": f"{key}=admin",
    }
    run: dict[str, Any] = {"entries": entries, "service_commit": service_commit()}
    run["load_average"] = {"start": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="strata-cluster-") as tmp, contextlib.ExitStack() as st:
        root = Path(tmp)
        servers = Servers(root)
        st.callback(servers.stop)
        run["postgres_version"] = servers.version

        def workload() -> Workload:
            w = Workload(entries, args.seed, args.namespaces, args.days, args.namespace_prefix,
                         time.time())  # fmt: skip
            w.c_ttl_days = settings.lifecycle.c_ttl_days
            return w

        def chroma(name: str) -> tuple[str, ChromaServer]:
            server = ChromaServer(root / f"chroma-{name}")
            st.callback(server.stop)
            return server.start(), server

        # 1. SQLite ledger.
        url, server = chroma("sqlite")
        solo = ReplicaProcess("sqlite", root / "sqlite", root / "sqlite.log",
                              {**env, "STRATA_CHROMA_URL": url}).wait_up()  # fmt: skip
        try:
            run["sqlite"], reservoir = single(args, key, solo, workload(), server, [])
            run["sqlite"]["ledger_bytes"] = sum(
                p.stat().st_blocks * 512 for p in solo.data_dir.glob("ledger*")
            )
        finally:
            solo.stop()
        server.stop()

        # 2. Postgres ledger, one replica.
        url, server = chroma("postgres")
        shared = {**env, "STRATA_CHROMA_URL": url, "STRATA_DATABASE_URL": servers.url}
        first = ReplicaProcess("r1", root / "r1", root / "r1.log", shared).wait_up()
        st.callback(first.stop)
        pg_pids = servers.postgres_pids()
        run["postgres"], _ = single(args, key, first, workload(), server, pg_pids)
        run["postgres"]["ledger_bytes"] = servers.database_bytes()

        # 3. Two replicas, the second started empty.
        second = ReplicaProcess("r2", root / "r2", root / "r2.log", shared).wait_up()
        st.callback(second.stop)
        replicas = [first, second]
        plan = QueryPlan(reservoir, args.seed + 102, args.queries, args.warmup)
        two: dict[str, Any] = {
            "second_start_seconds": second.up_seconds,
            "tantivy_bytes": {r.name: tree_bytes(r.data_dir / "tantivy") for r in replicas},
        }
        two["search"] = search_cells(args, key, replicas, plan, server, pg_pids)
        two["lag"] = replication_lag(args, key, first, second, workload())
        two["memory"] = {r.name: proc_memory(r.pid) for r in replicas}
        two["chroma_bytes"] = tree_bytes(server.path / "data")
        run["postgres_x2"] = two
    run["load_average"]["end"] = os.getloadavg()
    return run


def single(
    args: argparse.Namespace,
    key: str,
    replica: ReplicaProcess,
    workload: Workload,
    chroma: ChromaServer,
    pg_pids: list[int],
) -> tuple[dict[str, Any], Reservoir]:
    """Ingest into one replica, settle, search it; the figures and the queries' sources."""
    report: dict[str, Any] = {"start_seconds": replica.up_seconds}
    reservoir = Reservoir(RESERVOIR, args.seed + 1)
    with _client(replica.url, key, 4) as client:
        print(f"{replica.name}: ingesting {workload.entries} entries", file=sys.stderr)
        report["ingest"] = ingest(client, workload, args.batch, reservoir)
        started = time.perf_counter()
        resp = client.post("/v1/admin/jobs/expire_c_tier/run", timeout=JOB_TIMEOUT_S)
        resp.raise_for_status()
        report["expire_seconds"] = time.perf_counter() - started
    plan = QueryPlan(reservoir, args.seed + 2, args.queries, args.warmup)
    report["search"] = search_cells(args, key, [replica], plan, chroma, pg_pids)
    with _client(replica.url, key, 4) as client:
        if args.short_events:
            report["short_ingest"] = ingest_short(client, workload, args.short_events, args.batch)
        report["stats"] = client.get("/v1/stats").json()
    report["memory"] = proc_memory(replica.pid)
    report["tantivy_bytes"] = tree_bytes(replica.data_dir / "tantivy")
    report["chroma_bytes"] = tree_bytes(chroma.path / "data")
    return report, reservoir


def _client(url: str, key: str, connections: int) -> httpx.Client:
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx.Client(
        base_url=url, headers=auth_headers(key), timeout=REQUEST_TIMEOUT_S, limits=limits
    )


def round_robin(searches: Sequence[Callable[[Query], Outcome]]) -> Callable[[Query], Outcome]:
    """One search function sending each request to the next replica in turn."""
    turn = itertools.count()
    lock = threading.Lock()

    def search(q: Query) -> Outcome:
        with lock:
            n = next(turn)
        return searches[n % len(searches)](q)

    return search


def search_cells(
    args: argparse.Namespace,
    key: str,
    replicas: Sequence[ReplicaProcess],
    plan: QueryPlan,
    chroma: ChromaServer,
    pg_pids: list[int],
) -> list[dict[str, Any]]:
    """Every mode at every concurrency, round-robin over ``replicas``, with the CPU time
    each server spent per search."""
    top = max(args.concurrency) + 4
    processes: dict[str, list[int]] = {
        "strata": [r.pid for r in replicas],
        "postgres": pg_pids,
        "chroma": [chroma.process.pid] if chroma.process else [],
    }
    label = "+".join(r.name for r in replicas)
    cells = []
    with contextlib.ExitStack() as stack:
        clients = [stack.enter_context(_client(r.url, key, top)) for r in replicas]
        for mode in args.modes:
            search = round_robin([service_search(c, mode, args.limit) for c in clients])
            run_cell(search, plan.warmup(mode), 1, args.max_seconds, Cell(label, mode, 1))
            for concurrency in args.concurrency:
                cell = Cell(label, mode, concurrency)
                before = {name: tree_cpu(pids) for name, pids in processes.items()}
                run_cell(search, plan.cell(mode, concurrency), concurrency, args.max_seconds, cell)
                after = {name: tree_cpu(pids) for name, pids in processes.items()}
                summary = cell.summary()
                done = max(summary["queries"], 1)
                summary["cpu_ms_per_search"] = {
                    name: (after[name] - before[name]) * 1000 / done
                    for name, pids in processes.items()
                    if pids
                }
                cells.append(summary)
                print_progress(f"{label} {mode}", cell, summary)
    return cells


def replication_lag(
    args: argparse.Namespace,
    key: str,
    writer: ReplicaProcess,
    reader: ReplicaProcess,
    workload: Workload,
) -> dict[str, Any]:
    """Seconds from a write acknowledged by ``writer`` to ``reader``'s BM25 search finding
    it: idle, then while another client ingests into ``writer``."""
    namespace = workload.namespaces[0]
    report: dict[str, Any] = {"idle": probe(key, writer, reader, namespace, "idle")}
    stop = threading.Event()
    sent: dict[str, float] = {"events": 0, "seconds": 0.0}

    def ingest_meanwhile() -> None:
        rng = random.Random(workload.seed + 11)
        with _client(writer.url, key, 2) as client:
            batch = 0
            while not stop.is_set():
                tier = "A" if batch % 5 == 0 else "E"
                events = [
                    {"namespace": namespace, "tier": tier, "text": workload.sentence(rng, 8, 30)}
                    for _ in range(BACKGROUND_BATCH)
                ]
                _, seconds = post_events(client, events)
                sent["events"] += len(events)
                sent["seconds"] += seconds
                batch += 1

    background = threading.Thread(target=ingest_meanwhile, daemon=True)
    started = time.perf_counter()
    background.start()
    try:
        time.sleep(1.0)  # the ingest under way before anything is measured
        report["follow"] = follow_cost(writer, reader, sent)
        report["under_ingest"] = probe(key, writer, reader, namespace, "under ingest")
    finally:
        stop.set()
        background.join(REQUEST_TIMEOUT_S)
    wall = time.perf_counter() - started
    report["background"] = {**sent, "wall_seconds": wall, "events_per_s": sent["events"] / wall}
    with _client(reader.url, key, 1) as client:
        report["reader_health"] = client.get("/health").json().get("replica")
    return report


def follow_cost(
    writer: ReplicaProcess, reader: ReplicaProcess, sent: Mapping[str, float]
) -> dict[str, float]:
    """CPU milliseconds per event the writer spends taking it and the reader spends
    applying it from the change log, over ``FOLLOW_S`` of ingest (nothing else asks the
    reader anything meanwhile)."""
    events, cpu = sent["events"], [tree_cpu([writer.pid]), tree_cpu([reader.pid])]
    time.sleep(FOLLOW_S)
    events = sent["events"] - events
    spent = [tree_cpu([writer.pid]) - cpu[0], tree_cpu([reader.pid]) - cpu[1]]
    per = {
        "events": events,
        "writer_cpu_ms_per_event": spent[0] * 1000 / max(events, 1),
        "reader_cpu_ms_per_event": spent[1] * 1000 / max(events, 1),
    }
    print(f"  follow: {per}", file=sys.stderr)
    return per


def probe(
    key: str, writer: ReplicaProcess, reader: ReplicaProcess, namespace: str, label: str
) -> dict[str, Any]:
    """``LAG_PROBES`` writes, one at a time: the seconds each took to be found on
    ``reader``. Each write waits a random pause first: written right after the previous
    one was found, so right after the reader's poll, every probe would wait a whole poll
    interval."""
    lags: list[float] = []
    lost = 0
    pause = random.Random(LAG_PROBES)
    with _client(writer.url, key, 2) as w, _client(reader.url, key, 2) as r:
        for n in range(LAG_PROBES):
            time.sleep(pause.uniform(0.0, PROBE_PAUSE_S))
            token = f"lagprobe{uuid.uuid4().hex[:10]}"
            body, _ = post_events(
                w, [{"namespace": namespace, "tier": "E", "text": f"{token} probe {n} landed"}]
            )
            [written] = body["ids"]
            acked = time.perf_counter()
            query = {"namespace": namespace, "query": token, "mode": "bm25", "relax": False}
            while True:
                hits = r.post("/v1/search", json=query).json()["results"]
                elapsed = time.perf_counter() - acked
                if any(hit["id"] == written for hit in hits):
                    lags.append(elapsed)
                    break
                if elapsed > LAG_BOUND_S:
                    lost += 1
                    break
                time.sleep(0.005)
    summary = lag_summary(lags, lost)
    print(
        f"  lag {label}: p50 {summary['p50_s'] * 1000:.0f} ms, "
        f"max {summary['max_s'] * 1000:.0f} ms",
        file=sys.stderr,
    )
    return summary


def lag_summary(lags: Sequence[float], lost: int) -> dict[str, Any]:
    ordered = sorted(lags)
    nan = float("nan")
    return {
        "probes": len(lags) + lost,
        "lost": lost,
        "p50_s": statistics.median(ordered) if ordered else nan,
        "p95_s": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else nan,
        "max_s": ordered[-1] if ordered else nan,
        "mean_s": statistics.fmean(ordered) if ordered else nan,
    }


def setup_rows(run: Mapping[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The search cells of each setup of a run, with the setup's label."""
    return [
        ("SQLite ledger, 1 process", run["sqlite"]["search"]),
        ("Postgres ledger, 1 replica", run["postgres"]["search"]),
        ("Postgres ledger, 2 replicas (round-robin)", run["postgres_x2"]["search"]),
    ]
