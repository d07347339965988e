"""The peers' side of a load run: build them from the workload, run the service's queries."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.load import peers
from bench.load.cells import Outcome, overlap, print_progress, run_cells
from bench.load.queries import Query, QueryPlan
from bench.load.workload import Workload
from bench.server import proc_memory


def run_peers(
    args: argparse.Namespace,
    workload: Workload,
    plan: QueryPlan,
    service_results: Mapping[str, Mapping[int, list[str]]],
    settings: Any,
) -> dict[str, Any]:
    """Build ``args.peers`` from a second pass over the workload and run each on the queries of
    the service cell it stands against; overlap at concurrency 1 is with ``service_results``."""
    report: dict[str, Any] = {"search": []}
    self_before = proc_memory(os.getpid())
    with tempfile.TemporaryDirectory(prefix="strata-load-peers-") as tmp:
        built = peers.Peers(
            Path(tmp),
            workload.namespaces,
            args.peers,
            rrf_k=settings.search.rrf_k,
            depth=settings.search.candidates,
            chroma_url=args.chroma_url or "",
            backend=settings.models.embedding_backend,
        )
        try:
            print(f"building peers: {', '.join(args.peers)}", file=sys.stderr)
            started = time.perf_counter()

            def progress(done: int) -> None:
                print(f"  peers {done}/{workload.entries}", end="\r", file=sys.stderr, flush=True)

            peers.build(built, workload.docs(), workload.now, progress=progress)
            print(file=sys.stderr)
            report["build"] = {
                **peers.describe_build(built.stats),
                "wall_seconds": time.perf_counter() - started,
            }
            report["disk_bytes"] = built.disk_bytes()
            report["model"] = built.model_name
            for system in built.systems():

                def search(q: Query, s: peers.PeerSystem = system) -> Outcome:
                    found = s.search(q.text, q.namespace, args.limit)
                    return [f.id for f in found], None, [], False

                cells = run_cells(
                    search,
                    plan,
                    system.name,
                    system.like,
                    args.peer_concurrency,
                    args.max_seconds,
                    warmup=system.name,
                )
                for cell in cells:
                    summary = cell.summary()
                    summary["like"] = system.like
                    if cell.concurrency == 1 and system.like in service_results:
                        summary["overlap"] = overlap(service_results[system.like], cell.results)
                    report["search"].append(summary)
                    print_progress(system.name, cell, summary)
        finally:
            built.close()
    report["memory"] = {
        "benchmark_before": self_before,
        "benchmark_after": proc_memory(os.getpid()),
    }
    return report
