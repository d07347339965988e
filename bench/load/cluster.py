"""Cluster mode of the load benchmark (``python -m bench.load --cluster``).

Everything runs on this machine, started by the benchmark: a PostgreSQL server (``initdb``
in a temporary folder, with the server's durable defaults: fsync and synchronous commits
on), a ``chroma run`` server per setup, and strata replicas. Per corpus size:

1. **SQLite ledger against Postgres ledger, one process each**: a replica with its ledger in
   SQLite files (WAL, ``synchronous=FULL``) and one on the Postgres server
   (``STRATA_DATABASE_URL``), each with a Chroma server of its own, run side by side: each
   batch of the workload goes to one and then the other (which goes first alternates), and
   so does each search cell, on the same queries, so a change in the machine's load (other
   work on it) hits both. After the ingest ``expire_c_tier`` runs once on each; then every
   mode is searched at each concurrency; then short events are sent to each.
2. **Postgres ledger, two replicas**: the SQLite one stops and a second replica starts on
   the Postgres ledger with an empty data directory (its keyword index rebuilt from
   Postgres: timed, and its size measured). The searches go round-robin to the two (the
   load client alternates base URLs, request by request; no load balancer process), with
   other queries than before, so no query cache hits. Then replication lag: an event
   written to one replica, the other's BM25 search polled until it finds it, idle and
   while another client ingests into the first replica; and the CPU each replica spends
   per event of that ingest.

CPU milliseconds per search are read from /proc (user + system time of each server
process and its children, before and after each cell): the strata replicas, the
PostgreSQL server's processes and the Chroma server, each divided by the searches of the
cell. The load client runs on the same cores, as in the single-process run.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.common import REQUEST_TIMEOUT_S, admin_key_env, auth_headers, tree_bytes
from bench.load.cells import Cell, Outcome, print_progress, run_cell
from bench.load.ingest import TierIngest, ingest_report, ingest_short, post_events
from bench.load.processes import ReplicaProcess, postmaster_pid, tree_cpu
from bench.load.queries import Query, QueryPlan, Reservoir
from bench.load.service import JOB_TIMEOUT_S, RESERVOIR, service_search
from bench.load.workload import TIERS, Workload
from bench.server import proc_memory, service_commit, service_settings
from service.testing.engines import ChromaServer, TemporaryPostgres, create_database, find_binaries

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

    def __init__(self) -> None:
        binaries = find_binaries()
        if binaries is None:
            raise RuntimeError(
                "the cluster benchmark starts a PostgreSQL server: install initdb and pg_ctl "
                "(apt-get install postgresql)"
            )
        self.postgres = TemporaryPostgres(binaries, durable=True)
        self.url = create_database(self.postgres.start(), "strata_bench")
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


@dataclass
class Setup:
    """Replicas searched together (round-robin), with the servers whose CPU they use."""

    name: str
    replicas: list[ReplicaProcess]
    chroma: ChromaServer
    postgres: list[int]
    """The PostgreSQL server's PID (none for a SQLite ledger)."""

    def processes(self) -> dict[str, list[int]]:
        chroma = [self.chroma.process.pid] if self.chroma.process else []
        return {"strata": [r.pid for r in self.replicas], "postgres": self.postgres,
                "chroma": chroma}  # fmt: skip


def run_cluster_size(args: argparse.Namespace, entries: int) -> dict[str, Any]:
    settings = service_settings()
    key = args.api_key or f"bench-{uuid.uuid4().hex}"
    env = {
        "STRATA_JOBS": "off",
        "STRATA_RERANKER_MODEL": "",
        **admin_key_env(key),
    }
    run: dict[str, Any] = {"entries": entries, "service_commit": service_commit()}
    run["load_average"] = {"start": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="strata-cluster-") as tmp, contextlib.ExitStack() as st:
        root = Path(tmp)
        servers = Servers()
        st.callback(servers.stop)
        run["postgres_version"] = servers.version

        def workload() -> Workload:
            w = Workload(entries, args.seed, args.namespaces, args.days, args.namespace_prefix,
                         time.time())  # fmt: skip
            w.c_ttl_days = settings.lifecycle.c_ttl_days
            return w

        def chroma(name: str) -> ChromaServer:
            server = ChromaServer(root / f"chroma-{name}")
            st.callback(server.stop)
            server.start()
            return server

        def replica(name: str, extra: dict[str, str]) -> ReplicaProcess:
            started = ReplicaProcess(name, root / name, root / f"{name}.log", {**env, **extra})
            st.callback(started.stop)
            return started

        # 1-2. A SQLite ledger and a Postgres one, side by side: each batch and each search
        # cell goes to one, then the other, so a change in the machine's load hits both.
        chromas = {"sqlite": chroma("sqlite"), "postgres": chroma("postgres")}
        solo = replica("sqlite", {"STRATA_CHROMA_URL": chromas["sqlite"].url})
        pg_env = {"STRATA_DATABASE_URL": servers.url, "STRATA_CHROMA_URL": chromas["postgres"].url}
        first = replica("r1", pg_env)
        setups = [
            Setup("sqlite", [solo.wait_up()], chromas["sqlite"], []),
            Setup("postgres", [first.wait_up()], chromas["postgres"], servers.postgres_pids()),
        ]
        reservoir = Reservoir(RESERVOIR, args.seed + 1)
        ingested = ingest_side_by_side(args, key, setups, workload(), reservoir)
        plan = QueryPlan(reservoir, args.seed + 2, args.queries, args.warmup)
        searched = search_cells(args, key, setups, plan)
        for setup in setups:
            run[setup.name] = {
                "start_seconds": setup.replicas[0].up_seconds,
                **ingested[setup.name],
                "search": searched[setup.name],
                **after_search(args, key, setup, workload()),
            }
        run["sqlite"]["ledger_bytes"] = sum(
            p.stat().st_blocks * 512 for p in solo.data_dir.glob("ledger*")
        )
        run["postgres"]["ledger_bytes"] = servers.database_bytes()
        solo.stop()
        chromas["sqlite"].stop()

        # 3. Two replicas, the second started empty, other queries.
        second = replica("r2", pg_env).wait_up()
        two = Setup("postgres_x2", [first, second], chromas["postgres"], setups[1].postgres)
        plan = QueryPlan(reservoir, args.seed + 102, args.queries, args.warmup)
        run["postgres_x2"] = {
            "second_start_seconds": second.up_seconds,
            "tantivy_bytes": {r.name: tree_bytes(r.data_dir / "tantivy") for r in two.replicas},
            "search": search_cells(args, key, [two], plan)[two.name],
            "lag": replication_lag(args, key, first, second, workload()),
            "memory": {r.name: proc_memory(r.pid) for r in two.replicas},
            "chroma_bytes": tree_bytes(two.chroma.path / "data"),
        }
    run["load_average"]["end"] = os.getloadavg()
    return run


def ingest_side_by_side(
    args: argparse.Namespace,
    key: str,
    setups: Sequence[Setup],
    workload: Workload,
    reservoir: Reservoir,
) -> dict[str, dict[str, Any]]:
    """The workload into each setup's first replica in one-tier batches of ``args.batch``,
    each batch to every setup in turn (which goes first alternates); then ``expire_c_tier``
    once on each (timed). Per setup: ``ingest`` as ``bench.load.ingest.ingest`` reports
    it, and ``expire_seconds``."""
    names = [s.name for s in setups]
    tiers = {name: {t: TierIngest() for t in TIERS} for name in names}
    buffers: dict[str, list[dict[str, Any]]] = {t: [] for t in TIERS}
    sent = 0
    print(f"ingesting {workload.entries} entries into {', '.join(names)}", file=sys.stderr)
    with contextlib.ExitStack() as stack:
        clients = {s.name: stack.enter_context(_client(s.replicas[0].url, key, 2)) for s in setups}

        def send(tier: str) -> None:
            nonlocal sent
            names.reverse()
            for name in names:
                body, seconds = post_events(clients[name], buffers[tier])
                stats = tiers[name][tier]
                stats.events += len(buffers[tier])
                stats.batches += 1
                stats.seconds += seconds
                stats.embedded += int(body.get("embedded", 0))
                stats.indexed += int(body.get("indexed", 0))
            sent += len(buffers[tier])
            buffers[tier] = []
            print(f"  ingested {sent}/{workload.entries}", end="\r", file=sys.stderr, flush=True)

        for event in workload.events():
            reservoir.offer(event)
            buffers[event["tier"]].append(event)
            if len(buffers[event["tier"]]) >= args.batch:
                send(event["tier"])
        for tier in TIERS:
            if buffers[tier]:
                send(tier)
        print(file=sys.stderr)
        expire = {}
        for name, client in clients.items():
            started = time.perf_counter()
            resp = client.post("/v1/admin/jobs/expire_c_tier/run", timeout=JOB_TIMEOUT_S)
            resp.raise_for_status()
            expire[name] = time.perf_counter() - started
    return {
        name: {"ingest": ingest_report(tiers[name], args.batch), "expire_seconds": expire[name]}
        for name in tiers
    }


def after_search(
    args: argparse.Namespace, key: str, setup: Setup, workload: Workload
) -> dict[str, Any]:
    """Short events into the setup's first replica, then what it holds and its memory."""
    [replica, *_] = setup.replicas
    report: dict[str, Any] = {}
    with _client(replica.url, key, 4) as client:
        if args.short_events:
            report["short_ingest"] = ingest_short(client, workload, args.short_events, args.batch)
        report["stats"] = client.get("/v1/stats").json()
    report["memory"] = proc_memory(replica.pid)
    report["tantivy_bytes"] = tree_bytes(replica.data_dir / "tantivy")
    report["chroma_bytes"] = tree_bytes(setup.chroma.path / "data")
    return report


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
    args: argparse.Namespace, key: str, setups: Sequence[Setup], plan: QueryPlan
) -> dict[str, list[dict[str, Any]]]:
    """Every mode at every concurrency on each setup (round-robin over its replicas), the
    setups taking turns cell by cell on the same queries, with the CPU time each server
    spent per search."""
    top = max(args.concurrency) + 4
    cells: dict[str, list[dict[str, Any]]] = {s.name: [] for s in setups}
    order = list(setups)
    with contextlib.ExitStack() as stack:
        clients = {
            s.name: [stack.enter_context(_client(r.url, key, top)) for r in s.replicas]
            for s in setups
        }
        for mode in args.modes:
            searches = {
                name: round_robin([service_search(c, mode, args.limit) for c in mine])
                for name, mine in clients.items()
            }
            for setup in setups:
                warmup = Cell(setup.name, mode, 1)
                run_cell(searches[setup.name], plan.warmup(mode), 1, args.max_seconds, warmup)
            for concurrency in args.concurrency:
                order.reverse()
                for setup in order:
                    cell = Cell(setup.name, mode, concurrency)
                    queries = plan.cell(mode, concurrency)
                    summary = measured_cell(args, searches[setup.name], queries, cell, setup)
                    cells[setup.name].append(summary)
    return cells


def measured_cell(
    args: argparse.Namespace,
    search: Callable[[Query], Outcome],
    queries: Sequence[Query],
    cell: Cell,
    setup: Setup,
) -> dict[str, Any]:
    """One cell's figures, with the CPU milliseconds per search of each server."""
    processes = {name: pids for name, pids in setup.processes().items() if pids}
    before = {name: tree_cpu(pids) for name, pids in processes.items()}
    run_cell(search, queries, cell.concurrency, args.max_seconds, cell)
    after = {name: tree_cpu(pids) for name, pids in processes.items()}
    summary = cell.summary()
    done = max(summary["queries"], 1)
    summary["cpu_ms_per_search"] = {
        name: (after[name] - before[name]) * 1000 / done for name in processes
    }
    print_progress(f"{setup.name} {cell.mode}", cell, summary)
    return summary


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
