"""Measuring cells: one system's latencies and throughput in one mode at one concurrency."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.common import percentile
from bench.load.queries import Query, QueryPlan

MAX_CELL_ERRORS = 20
"""A cell stops once this many of its searches have failed."""


Outcome = tuple[list[str], float | None, list[str], bool]
"""Result ids, the server's took_ms (None for peers), degraded reasons, relaxed retry."""


@dataclass
class Cell:
    system: str
    mode: str
    concurrency: int
    latencies_ms: list[float] = field(default_factory=list)
    took_ms: list[float] = field(default_factory=list)
    hits: list[int] = field(default_factory=list)
    results: dict[int, list[str]] = field(default_factory=dict)
    errors: int = 0
    first_error: str | None = None
    degraded: set[str] = field(default_factory=set)
    relaxed: int = 0
    wall_s: float = 0.0
    planned: int = 0

    def summary(self) -> dict[str, Any]:
        done = len(self.latencies_ms)
        return {
            "system": self.system,
            "mode": self.mode,
            "concurrency": self.concurrency,
            "queries": done,
            "planned": self.planned,
            "errors": self.errors,
            "first_error": self.first_error,
            "p50_ms": percentile(self.latencies_ms, 50),
            "p95_ms": percentile(self.latencies_ms, 95),
            "p99_ms": percentile(self.latencies_ms, 99),
            "mean_ms": sum(self.latencies_ms) / done if done else float("nan"),
            "max_ms": max(self.latencies_ms) if done else float("nan"),
            "searches_per_s": done / self.wall_s if self.wall_s > 0 else float("nan"),
            "wall_s": self.wall_s,
            "server_took_p50_ms": percentile(self.took_ms, 50),
            "hits_mean": sum(self.hits) / done if done else float("nan"),
            "zero_hit_share": sum(1 for h in self.hits if h == 0) / done if done else float("nan"),
            "relaxed_share": self.relaxed / done if done else float("nan"),
            "degraded": sorted(self.degraded),
            "latencies_ms": [round(v, 2) for v in self.latencies_ms],
        }


def run_cell(
    search: Callable[[Query], Outcome],
    queries: Sequence[Query],
    concurrency: int,
    max_seconds: float,
    cell: Cell,
) -> Cell:
    """Send every query once from ``concurrency`` threads, or until ``max_seconds`` pass."""
    lock = threading.Lock()
    cursor = iter(range(len(queries)))
    deadline = time.monotonic() + max_seconds
    cell.planned = len(queries)

    def worker() -> None:
        while True:
            with lock:
                if time.monotonic() >= deadline or cell.errors >= MAX_CELL_ERRORS:
                    return
                i = next(cursor, None)
            if i is None:
                return
            started = time.perf_counter()
            try:
                ids, took, degraded, relaxed = search(queries[i])
            except Exception as exc:  # count it, keep going: a load test reports failures
                with lock:
                    cell.errors += 1
                    cell.first_error = cell.first_error or repr(exc)[:300]
                continue
            elapsed = (time.perf_counter() - started) * 1000.0
            with lock:
                cell.latencies_ms.append(elapsed)
                cell.hits.append(len(ids))
                cell.results[i] = ids
                if took is not None:
                    cell.took_ms.append(took)
                cell.degraded.update(degraded)
                cell.relaxed += int(relaxed)

    started = time.perf_counter()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cell.wall_s = time.perf_counter() - started
    return cell


def run_cells(
    search: Callable[[Query], Outcome],
    plan: QueryPlan,
    system: str,
    mode: str,
    concurrencies: Sequence[int],
    max_seconds: float,
    *,
    warmup: str,
) -> Iterator[Cell]:
    """One system's cells in ``mode``, one per concurrency, on the plan's queries for them;
    first, uncounted, ``plan.warmup(warmup)`` at concurrency 1."""
    run_cell(search, plan.warmup(warmup), 1, max_seconds, Cell(system, mode, 1))
    for c in concurrencies:
        yield run_cell(search, plan.cell(mode, c), c, max_seconds, Cell(system, mode, c))


def print_progress(label: str, cell: Cell, summary: Mapping[str, Any]) -> None:
    print(
        f"  {label} c={cell.concurrency}: {summary['queries']} in {cell.wall_s:.1f} s, "
        f"p50 {summary['p50_ms']:.1f} ms",
        file=sys.stderr,
    )


def overlap(service: Mapping[int, list[str]], peer: Mapping[int, list[str]]) -> float:
    """Mean share of ids two systems both returned for the same query."""
    shares = []
    for i, theirs in peer.items():
        ours = service.get(i)
        if ours is None:
            continue
        bigger = max(len(ours), len(theirs))
        shares.append(len(set(ours) & set(theirs)) / bigger if bigger else 1.0)
    return sum(shares) / len(shares) if shares else float("nan")
