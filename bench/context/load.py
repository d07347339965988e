"""``python -m bench.context.load``: what a context call takes against a retrieve on the load
benchmark's generated workload (``bench.load``), served on a fresh data directory.

Each question (the load run's queries: keywords of sampled entries in question forms, each
text new) is first searched, untimed, so its vector is kept; then a retrieve (``top_n`` 10)
and a context call at each budget are timed one after the other. Printed: each call's p50
and its ratio to the retrieve's.
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.common import REQUEST_TIMEOUT_S
from bench.context.runs import BUDGETS, TOP_N
from bench.load.ingest import ingest
from bench.load.queries import Query, Reservoir, query_stream
from bench.load.workload import Workload
from bench.quality.servers import BASE, Served

WARMUP = 20
"""Questions asked of every call first, untimed."""

Call = Callable[[Query], tuple[str, dict[str, Any]]]


def calls() -> dict[str, Call]:
    """The calls timed for each question, by name."""
    made: dict[str, Call] = {"retrieve": _retrieve}
    for budget in BUDGETS:
        made[f"context at {budget}"] = _context(budget)
    return made


def _retrieve(q: Query) -> tuple[str, dict[str, Any]]:
    return "/v1/retrieve", {"question": q.text, "namespace": q.namespace, "top_n": TOP_N}


def _context(budget: int) -> Call:
    def call(q: Query) -> tuple[str, dict[str, Any]]:
        body = {"question": q.text, "namespace": q.namespace, "max_tokens": budget}
        return "/v1/context", body

    return call


def ratios(times: dict[str, list[float]]) -> dict[str, tuple[float, float]]:
    """Each call's p50 (ms) and its ratio to the retrieve's."""
    base = statistics.median(times["retrieve"])
    return {
        name: (statistics.median(taken) * 1000, statistics.median(taken) / base)
        for name, taken in times.items()
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.context.load", description=__doc__)
    p.add_argument("--entries", type=int, default=20_000, help="entries of the workload")
    p.add_argument("--questions", type=int, default=300, help="questions timed")
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="strata-context-load-"))
    workload = Workload(args.entries, args.seed, 4, 30.0, "load", time.time())
    reservoir = Reservoir(2000, args.seed)
    target = Served(BASE, None, root)
    times: dict[str, list[float]] = {name: [] for name in calls()}
    try:
        target.fresh()
        with httpx.Client(base_url=target.url, timeout=REQUEST_TIMEOUT_S) as c:
            ingest(c, workload, 500, reservoir)
        target.fresh()
        questions = list(
            itertools.islice(query_stream(reservoir, args.seed), WARMUP + args.questions)
        )
        with httpx.Client(base_url=target.url, timeout=REQUEST_TIMEOUT_S) as c:
            for n, q in enumerate(questions):
                c.post(
                    "/v1/search", json={"query": q.text, "namespace": q.namespace}
                ).raise_for_status()
                for name, call in calls().items():
                    path, body = call(q)
                    started = time.perf_counter()
                    c.post(path, json=body).raise_for_status()
                    if n >= WARMUP:
                        times[name].append(time.perf_counter() - started)
    finally:
        target.stop()
        shutil.rmtree(root, ignore_errors=True)
    print(f"{args.entries} entries, {args.questions} questions, each question's vector kept")
    print("\n| call | p50 ms | p50 / retrieve p50 |\n|---|---:|---:|")
    for name, (p50, ratio) in ratios(times).items():
        print(f"| {name} | {p50:.1f} | {ratio:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
