"""The side-by-side table: each system's R@10, search latency and ingest rate, and the
ratios of strata's latency to LanceDB's that the targets use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bench.common import machine_info
from bench.quality.report import figure
from bench.quality.runs import ModeRun
from bench.quality.scores import score_run
from service.evaluation.beir import Qrels

RATIOS = (
    ("strata hybrid", "LanceDB hybrid"),
    ("strata bm25", "LanceDB full-text"),
    ("strata hybrid, whole hits", "LanceDB hybrid"),
    ("strata bm25, whole hits", "LanceDB full-text"),
)
"""(strata row, peer row): strata's p50 at the top limit over the peer's, in the same run;
the targets compare the first two, each side answering ids and scores."""


def row(
    runs: Mapping[int, ModeRun], qrels: Qrels, ingest_s: float | None, docs: int
) -> dict[str, Any]:
    """One system's figures: R@10 of its pass at the top limit (as ``bench.quality`` scores
    it), p50/p95 ms of each limit's pass, ingest docs/s."""
    top = max(runs)
    scored = {limit: score_run(run, qrels) for limit, run in runs.items()}
    return {
        "recall@10": scored[top]["recall@10"],
        "queries": scored[top]["queries"],
        "latency_ms": {
            str(limit): {"p50": s["p50_ms"], "p95": s["p95_ms"]} for limit, s in scored.items()
        },
        "ingest_docs_per_s": docs / ingest_s if ingest_s else None,
    }


def ratios(rows: Mapping[str, Mapping[str, Any]], limit: int) -> dict[str, float | None]:
    found: dict[str, float | None] = {}
    for ours, theirs in RATIOS:
        if ours in rows and theirs in rows:
            a = rows[ours]["latency_ms"][str(limit)]["p50"]
            b = rows[theirs]["latency_ms"][str(limit)]["p50"]
            found[f"{ours} / {theirs}"] = a / b if b else None
    return found


def print_table(
    name: str, docs: int, rows: Mapping[str, Mapping[str, Any]], limits: Sequence[int]
) -> None:
    top, low = max(limits), min(limits)
    info = machine_info()
    queries = max((r["queries"] for r in rows.values()), default=0)
    print(
        f"\n**{name}**: {docs} docs, {queries} questions ({info['platform']}, "
        f"{info['cpu_count']} CPUs)\n"
    )
    head = f"| system / mode | R@10 | p50 / p95 ms @{top} |"
    head += f" p50 ms @{low} |" if low != top else ""
    print(f"{head} ingest docs/s |")
    print("|---|---:|---:|" + ("---:|" if low != top else "") + "---:|")
    for label, r in rows.items():
        at_top = r["latency_ms"][str(top)]
        cells = [
            label,
            figure(r["recall@10"], 3),
            f"{figure(at_top['p50'])} / {figure(at_top['p95'])}",
        ]
        if low != top:
            cells.append(figure(r["latency_ms"][str(low)]["p50"]))
        cells.append(figure(r["ingest_docs_per_s"], 0))
        print("| " + " | ".join(cells) + " |")
    for pair, value in ratios(rows, top).items():
        print(f"\np50 @{top}, {pair}: {figure(value, 2)}x", end="")
    print()
