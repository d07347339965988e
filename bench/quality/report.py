"""The printed report of a quality run (markdown tables) and its plot."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.common import machine_info, pyplot
from bench.quality.runs import RETRIEVE_TOP_N
from bench.quality.scores import BASELINE


def figure(value: Any, digits: int = 1, suffix: str = "") -> str:
    """``value`` with ``digits`` decimals; ``n/a`` when there is none."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:.{digits}f}{suffix}"


def _label(run: Mapping[str, Any], mode: str, variants: bool) -> str:
    return f"{run['variant']} | {mode}" if variants else mode


def print_report(name: str, n_docs: int, n_queries: int, runs: Sequence[Mapping[str, Any]]) -> None:
    info = machine_info()
    print(
        f"\n**{name}**: {n_docs} docs, {n_queries} queries "
        f"({info['platform']}, {info['cpu_count']} CPUs)\n"
    )
    variants = len(runs) > 1
    head = "| variant | mode |" if variants else "| mode |"
    print(f"{head} nDCG@10 | R@10 | R@100 | MRR@10 | Hit@5 | p50 ms | p95 ms |")
    print("|---|" + ("---|" if variants else "") + "---:|" * 7)
    for run in runs:
        for mode, m in run["modes"].items():
            print(
                f"| {_label(run, mode, variants)} | {m['ndcg@10']:.3f} | {m['recall@10']:.3f} "
                f"| {m['recall@100']:.3f} | {m['mrr@10']:.3f} | {m['hit@5']:.3f} "
                f"| {m['p50_ms']:.1f} | {m['p95_ms']:.1f} |"
            )
    took = ", ".join(
        f"{_label(run, mode, variants).replace(' | ', ' ')} {m['server_took_ms_mean']:.1f}"
        for run in runs
        for mode, m in run["modes"].items()
    )
    print(f"\nmean server took_ms: {took}")


def cost_method(queries: int, concurrency: int, restarts: bool) -> str:
    """What the cost figures measured, as one paragraph."""
    cached = (
        "Each pass (the searches one at a time above, these, the verdict, the passes by "
        "question form, the floor check's) runs on a freshly "
        "started service with its query-outcome cache off (STRATA_QUERY_CACHE_SIZE=0), so no "
        "query vector, passage vector or outcome is reused from another pass"
        if restarts
        else "The service at --url was not restarted between passes: what earlier passes "
        "left in its caches counts (its query-vector cache keeps 256 texts, so with more than "
        "256 distinct queries run in order no query vector is reused, but the last 4096 "
        "passage vectors are; start it with STRATA_QUERY_CACHE_SIZE=0 so that no outcome is)"
    )
    return (
        f"Cost: each mode's {queries} queries sent again by {concurrency} concurrent clients. "
        f"{cached}. CPU is the service process's and its children's (/proc, user + system) "
        "over the pass; model calls and tokens per search come from the read-time counters of "
        "/v1/stats before and after it (query tokens: the queries embedded; passage tokens: "
        "tier E and archived tier C passages embedded to score them). The benchmark's "
        f"clients run on the same machine. 'vs {BASELINE}' is searches/s over {BASELINE} "
        "mode's in the same run."
    )


def print_cost(runs: Sequence[Mapping[str, Any]], method: str) -> None:
    variants = len(runs) > 1
    print(f"\n{method}\n")
    head = "| variant | mode |" if variants else "| mode |"
    print(
        f"{head} searches/s | vs {BASELINE} | CPU ms/search | model calls/search "
        "| query tokens/search | passages/search | passage tokens/search |"
    )
    print("|---|" + ("---|" if variants else "") + "---:|" * 7)
    for run in runs:
        for mode, c in run["cost"].items():
            label = _label(run, mode, variants)
            if mode not in run["modes"]:
                label += " (for the ratio)"
            if c["errors"]:
                label += f" ({c['errors']} errors)"
            print(
                f"| {label} | {figure(c['searches_per_s'])} "
                f"| {figure(c[f'vs_{BASELINE}'], 2, 'x')} "
                f"| {figure(c['cpu_ms_per_search'])} "
                f"| {figure(c['model_calls_per_search'], 2)} "
                f"| {figure(c['query_tokens_per_search'])} "
                f"| {figure(c['passages_per_search'], 2)} "
                f"| {figure(c['passage_tokens_per_search'])} |"
            )
    settings = [
        f"{run['variant']}: " + (", ".join(f"{k}={v}" for k, v in run["env"].items()) or "base")
        for run in runs[1:]
    ]
    if settings:
        print("\nVariants (each with its own service and ingest): " + "; ".join(settings) + ".")


def print_verdict(v: Mapping[str, Any], variant: str | None = None) -> None:
    fields = ", ".join(sorted(v["confidence_field"])) or "none"
    thresholds = ", ".join(f"{t:.2f}" for t in v["service_thresholds"]) or "?"
    print(
        f"\nverdict{f' ({variant})' if variant else ''} (POST /v1/retrieve, top_n "
        f"{RETRIEVE_TOP_N}, confidence: {fields}): {v['questions']} questions, "
        f"{v['answered']} with a relevant document among the entries "
        f"({v['answered_rate']:.3f})\n"
    )
    print(
        "| AUC | best J | at confidence ≥ | J at service threshold | service threshold "
        "| strong_match rate | ECE | p50 ms | p95 ms |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {v['auc']:.3f} | {v['best_j']:.3f} | {v['best_threshold']:.3f} "
        f"| {v['service_j']:.3f} | {thresholds} | {v['strong_match_rate']:.3f} "
        f"| {v['calibration_error']:.3f} | {v['p50_ms']:.1f} | {v['p95_ms']:.1f} |"
    )


def plot(report: Mapping[str, Any], out: Path) -> None:
    """Quality (nDCG@10, R@10, R@100, MRR@10, Hit@5) and p50/p95 latency per mode, side by side."""
    plt = pyplot()
    if plt is None:
        return
    modes = list(report["modes"])
    metrics = ["ndcg@10", "recall@10", "recall@100", "mrr@10", "hit@5"]
    fig, (quality, latency) = plt.subplots(1, 2, figsize=(12, 4.5))
    width = 0.8 / len(metrics)
    for n, metric in enumerate(metrics):
        xs = [i + n * width for i in range(len(modes))]
        quality.bar(xs, [report["modes"][m][metric] for m in modes], width, label=metric)
    quality.set_xticks([i + 0.4 - width / 2 for i in range(len(modes))], modes)
    quality.set_ylim(0, 1)
    quality.set_title(f"{report['dataset']}: quality ({report['queries']} queries)")
    quality.legend(fontsize=8)
    for n, key in enumerate(["p50_ms", "p95_ms"]):
        xs = [i + n * 0.4 for i in range(len(modes))]
        latency.bar(xs, [report["modes"][m][key] or 0 for m in modes], 0.4, label=key)
    latency.set_xticks([i + 0.2 for i in range(len(modes))], modes)
    latency.set_ylabel("ms per search (client side)")
    latency.set_title("latency")
    latency.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}", file=sys.stderr)
