"""The service side of a load run: ingest, settle and search it over HTTP, cell by cell."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

from bench import cost
from bench.common import REQUEST_TIMEOUT_S, auth_headers, search_fields, tree_bytes
from bench.load.cells import Cell, Outcome, print_progress, run_cell
from bench.load.ingest import ingest, ingest_short, skip_ingest
from bench.load.queries import Query, QueryPlan, Reservoir
from bench.load.reranker import wait_for_reranker
from bench.load.workload import Workload
from bench.server import proc_memory

JOB_TIMEOUT_S = 3600.0
RESERVOIR = 600
"""Entries of each tier kept as the sources of queries."""


def service_search(client: httpx.Client, mode: str, limit: int) -> Callable[[Query], Outcome]:
    """A search in ``mode`` through ``POST /v1/search``, as a cell runs it."""
    base = search_fields(mode, limit)

    def search(q: Query) -> Outcome:
        resp = client.post("/v1/search", json={**base, "query": q.text, "namespace": q.namespace})
        if not resp.is_success:
            raise RuntimeError(f"HTTP {resp.status_code}: {resp.text[:300]}")
        body = resp.json()
        took = body.get("took_ms")
        ids = [str(hit["id"]) for hit in body.get("results") or []]
        return (
            ids,
            float(took) if took is not None else None,
            list(body.get("degraded") or []),
            bool(body.get("relaxed")),
        )

    return search


def measured_cell(
    client: httpx.Client,
    pid: int | None,
    search: Callable[[Query], Outcome],
    queries: Sequence[Query],
    cell: Cell,
    args: argparse.Namespace,
) -> dict[str, Any]:
    """One cell's figures, with the service's CPU milliseconds and read-time model work per
    search (its ``/v1/stats`` counters and ``/proc`` read before and after the cell)."""
    before = cost.read(client, pid)
    run_cell(search, queries, cell.concurrency, args.max_seconds, cell)
    after = cost.read_after(client, pid)
    summary = cell.summary()
    return {**summary, **cost.per_search(before, after, summary["queries"])}


def run_service(
    args: argparse.Namespace, url: str, pid: int | None, data_dir: Path | None, workload: Workload
) -> tuple[dict[str, Any], QueryPlan, dict[str, dict[int, list[str]]]]:
    """Ingest, settle, search; returns the figures, the queries and the result ids per mode
    at concurrency 1."""
    headers = auth_headers(args.api_key)
    top = max(args.concurrency) + 4
    limits = httpx.Limits(max_connections=top, max_keepalive_connections=top)
    report: dict[str, Any] = {"url": url, "pid": pid, "memory": {}, "search": []}
    results: dict[str, dict[int, list[str]]] = {}
    with httpx.Client(
        base_url=url, headers=headers, timeout=REQUEST_TIMEOUT_S, limits=limits
    ) as client:
        report["memory"]["start"] = proc_memory(pid)
        reservoir = Reservoir(RESERVOIR, args.seed + 1)
        report["expire_job"] = None
        if args.no_ingest:
            print(f"reading the workload of {workload.entries} entries", file=sys.stderr)
            report["ingest"] = skip_ingest(workload, reservoir)
        else:
            print(f"ingesting {workload.entries} entries", file=sys.stderr)
            report["ingest"] = ingest(client, workload, args.batch, reservoir)
        report["memory"]["after_ingest"] = proc_memory(pid)
        if not args.keep_expired and not args.no_ingest:
            started = time.perf_counter()
            resp = client.post("/v1/admin/jobs/expire_c_tier/run", timeout=JOB_TIMEOUT_S)
            seconds = time.perf_counter() - started
            if resp.is_success:
                result = resp.json().get("last_result") or {}
                report["expire_job"] = {"seconds": seconds, "result": result}
            else:
                print(f"expire_c_tier not run: HTTP {resp.status_code}", file=sys.stderr)
        stats = client.get("/v1/stats")
        report["stats"] = stats.json() if stats.is_success else None
        plan = QueryPlan(reservoir, args.seed + 2, args.queries, args.warmup)
        report["reranker"] = None
        for mode in args.modes:
            if mode.endswith("+rerank"):
                report["reranker"] = wait_for_reranker(client)
                if report["reranker"] is None:
                    print("reranker not loaded: hybrid+rerank runs degraded", file=sys.stderr)
            search = service_search(client, mode, args.limit)
            run_cell(search, plan.warmup(mode), 1, args.max_seconds, Cell("service", mode, 1))
            for concurrency in args.concurrency:
                cell = Cell("service", mode, concurrency)
                summary = measured_cell(
                    client, pid, search, plan.cell(mode, concurrency), cell, args
                )
                report["search"].append(summary)
                if cell.concurrency == 1:
                    results[mode] = cell.results
                print_progress(f"service {mode}", cell, summary)
            report["memory"][f"after {mode}"] = proc_memory(pid)
        report["memory"]["after_search"] = proc_memory(pid)
        report["short_ingest"] = None
        if args.short_events and not args.no_ingest:
            print(f"ingesting {args.short_events} short events", file=sys.stderr)
            report["short_ingest"] = ingest_short(client, workload, args.short_events, args.batch)
        report["disk_bytes"] = tree_bytes(data_dir)
        report["data_dir"] = str(data_dir) if data_dir else None
    return report, plan, results
