"""The printed report of a context run: markdown tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bench.context.runs import SEARCH_LIMIT, TOP_N
from bench.context.scores import CONTEXT, NAIVE, RETRIEVE, SEARCH, block_key
from bench.quality.report import figure

BLOCK_NAMES = {CONTEXT: "context", NAIVE: "naive search"}


def call_name(kind: str) -> str:
    if kind == RETRIEVE:
        return f"retrieve (top_n {TOP_N})"
    if kind == SEARCH:
        return f"search (limit {SEARCH_LIMIT})"
    return kind.replace("@", " at ")


def print_report(report: Mapping[str, Any]) -> None:
    budgets: Sequence[int] = report["budgets"]
    machine = report["machine"]
    print(
        f"\n**{report['dataset']}**: {report['docs']} docs, {report['queries']} questions "
        f"with evidence ({machine['platform']}, {machine['cpu_count']} CPUs)\n"
    )
    print(
        "| budget | block | evidence inside | all evidence inside | only cut | tokens | entries |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|")
    for budget in budgets:
        for kind in (CONTEXT, NAIVE):
            b = report["blocks"][block_key(kind, budget)]
            cut = figure(b["inside_only_cut"], 3) if kind == CONTEXT else "-"
            print(
                f"| {budget} | {BLOCK_NAMES[kind]} | {figure(b['evidence_inside'], 3)} "
                f"| {figure(b['all_evidence_inside'], 3)} | {cut} "
                f"| {figure(b['mean_tokens'])} | {figure(b['mean_entries'])} |"
            )
    print(
        "\n| call | p50 ms | p95 ms | p50 / retrieve p50 | p50 ms, embedding the question "
        "| p50 ms, its vector kept | model calls per call |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind, c in report["calls"].items():
        print(
            f"| {call_name(kind)} | {figure(c['p50_ms'])} | {figure(c['p95_ms'])} "
            f"| {figure(c['p50_vs_retrieve'], 2)} | {figure(c['p50_ms_embedding'])} "
            f"| {figure(c['p50_ms_vector_kept'])} | {figure(c['model_calls_per_call'], 2)} |"
        )
    over = {k: b["over_budget"] for k, b in report["blocks"].items() if b["over_budget"]}
    check = report["token_check"]
    print(
        f"\ncontext blocks whose `tokens` the local tokenizer counts alike: "
        f"{check['agree']} of {check['checked']}; blocks over budget: {over or 'none'}"
    )
    if report["degraded"]:
        print(f"degraded: {', '.join(report['degraded'])}")
