"""The printed tables of the figures by question form and of the floor check."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from bench.quality.floor import FLOOR_MODE
from bench.quality.forms import ALL_DECISION, DECISION_FORMS, EVERY_TIER, MISS_KINDS
from bench.quality.report import figure
from bench.quality.runs import FORM_LIMIT, RANKED_TOP_N, SEARCH_LIMIT

GROUPS_PER_TABLE = 3
"""Groups of queries side by side in one table (three columns each)."""


def percent(value: Any) -> str:
    """A share as a percentage with one decimal; ``n/a`` when there is none."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{100.0 * value:.1f}%"


def _suffix(run: Mapping[str, Any], variants: bool) -> str:
    return f" ({run['variant']})" if variants else ""


def print_by_form(runs: Sequence[Mapping[str, Any]]) -> None:
    """Per run whose queries have a form: rank 1, top 3 and MRR@10 per endpoint and
    form, then what held rank 1 in the every-tier search when no relevant document did."""
    variants = len(runs) > 1
    for run in runs:
        forms = run.get("by_form")
        if not forms:
            continue
        sizes: Mapping[str, int] = forms["queries"]
        both = " + ".join(DECISION_FORMS)
        print(
            f"\nBy question form{_suffix(run, variants)}: rank 1 = a relevant document "
            f"first, top 3 = one in the first three, MRR = MRR@10; '{ALL_DECISION}' = "
            f"{both}. Searches with limit {FORM_LIMIT}, retrieve with top_n {RANKED_TOP_N}.\n"
        )
        groups = list(sizes)
        for start in range(0, len(groups), GROUPS_PER_TABLE):
            chunk = groups[start : start + GROUPS_PER_TABLE]
            head = " | ".join(f"{g} ({sizes[g]}): rank 1 | top 3 | MRR" for g in chunk)
            print(f"| endpoint | {head} |")
            print("|---|" + "---:|" * 3 * len(chunk))
            for name, by_group in forms["endpoints"].items():
                cells = " | ".join(
                    f"{percent(by_group[g]['rank1'])} | {percent(by_group[g]['top3'])} "
                    f"| {figure(by_group[g]['mrr@10'], 3)}"
                    for g in chunk
                )
                print(f"| {name} | {cells} |")
            print()
        misses = forms["rank1_misses"].get(EVERY_TIER)
        if misses:
            print(f"What held rank 1 when no relevant document did ({EVERY_TIER}):\n")
            print("| form | not relevant at rank 1 | " + " | ".join(MISS_KINDS) + " |")
            print("|---|" + "---:|" * (len(MISS_KINDS) + 1))
            for group, counts in misses.items():
                cells = " | ".join(str(counts[kind]) for kind in MISS_KINDS)
                print(f"| {group} | {sum(counts.values())} | {cells} |")


def print_floor(runs: Sequence[Mapping[str, Any]]) -> None:
    """One row per run and foreign set: what questions nothing answers got back."""
    rows = [(run, check) for run in runs for check in run.get("floor") or []]
    if not rows:
        return
    variants = len(runs) > 1
    print(
        "\nFloor check: this set's questions asked in a foreign set's namespaces (question "
        "i in its namespace i mod n), where nothing answers them; searches with the "
        f"service's defaults ({FLOOR_MODE} mode) and limit {SEARCH_LIMIT}, retrieve with "
        f"top_n {RANKED_TOP_N}. 'dropped': the search response's count of results cut by "
        "its relevance floor (n/a: not reported).\n"
    )
    head = "| variant | foreign set |" if variants else "| foreign set |"
    print(
        f"{head} questions | namespaces | search: no result | results/search "
        "| dropped/search | retrieve: strong_match false | retrieve: no entries |"
    )
    print("|---|" + ("---|" if variants else "") + "---:|" * 7)
    for run, c in rows:
        label = f"{run['variant']} | {c['dataset']}" if variants else c["dataset"]
        print(
            f"| {label} | {c['questions']} | {len(c['namespaces'])} "
            f"| {percent(c['search_empty'])} | {figure(c['search_results_mean'])} "
            f"| {figure(c['search_dropped_mean'])} | {percent(c['retrieve_weak'])} "
            f"| {percent(c['retrieve_empty'])} |"
        )
