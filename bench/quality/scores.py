"""The figures of a quality run: each mode's quality, its cost, the verdict's, and each
endpoint's by question form."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from bench import cost
from bench.common import percentile
from bench.quality.forms import rank1_misses, rank_figures
from bench.quality.metrics import hit_at_k, mean, mrr_at_k, ndcg_at_k, recall_at_k
from bench.quality.runs import CostRun, ModeRun, VerdictRun
from service.evaluation.beir import Qrels
from service.evaluation.verdict import (
    auc,
    best_cut,
    calibration_error,
    rate,
    reliability,
    youden_at,
)

BASELINE = "bm25"
"""The mode every mode's searches/s is compared with."""


def score_run(run: ModeRun, qrels: Qrels) -> dict[str, float]:
    """Mean metrics over the run's queries, latency percentiles and the query count."""
    per_query = [(run.rankings[qid], qrels[qid]) for qid in run.rankings]
    return {
        "ndcg@10": mean([ndcg_at_k(r, rel, 10) for r, rel in per_query]),
        "recall@10": mean([recall_at_k(r, rel, 10) for r, rel in per_query]),
        "recall@100": mean([recall_at_k(r, rel, 100) for r, rel in per_query]),
        "mrr@10": mean([mrr_at_k(r, rel, 10) for r, rel in per_query]),
        "hit@5": mean([hit_at_k(r, rel, 5) for r, rel in per_query]),
        "p50_ms": percentile(run.latencies_ms, 50),
        "p95_ms": percentile(run.latencies_ms, 95),
        "server_took_ms_mean": mean(run.took_ms),
        "queries": len(per_query),
    }


def score_cost(run: CostRun) -> dict[str, Any]:
    """Searches/s of the pass, and CPU and model work per search between its readings."""
    empty = cost.Reading(None, None, None)
    return {
        "concurrency": run.concurrency,
        "searches": run.searches,
        "errors": run.errors,
        "first_error": run.first_error,
        "wall_s": run.wall_s,
        "searches_per_s": run.searches / run.wall_s if run.wall_s > 0 else float("nan"),
        "p50_ms": percentile(run.latencies_ms, 50),
        "p95_ms": percentile(run.latencies_ms, 95),
        **cost.per_search(run.before or empty, run.after or empty, run.searches),
    }


def with_ratios(costs: Mapping[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each mode's cost with ``vs_bm25``: its searches/s over the baseline mode's."""
    base = costs.get(BASELINE, {}).get("searches_per_s")
    return {
        mode: {**c, f"vs_{BASELINE}": cost.ratio(c.get("searches_per_s"), base)}
        for mode, c in costs.items()
    }


def score_verdict(run: VerdictRun) -> dict[str, Any]:
    """How well the confidence tells answered questions from the others, and how the
    service's own strong_match does."""
    cut = best_cut(run.confidence, run.answered)
    bins = reliability(run.confidence, run.answered)
    return {
        "questions": len(run.answered),
        "answered": sum(run.answered),
        "answered_rate": rate(run.answered),
        "confidence_field": dict(run.fields),
        "auc": auc(run.confidence, run.answered),
        "best_j": cut.j if cut else float("nan"),
        "best_threshold": cut.threshold if cut else float("nan"),
        "service_thresholds": sorted(run.thresholds),
        "service_j": youden_at(run.strong, run.answered),
        "strong_match_rate": rate(run.strong),
        "calibration_error": calibration_error(bins),
        "reliability": [asdict(b) for b in bins],
        "p50_ms": percentile(run.latencies_ms, 50),
        "p95_ms": percentile(run.latencies_ms, 95),
    }


def score_forms(
    endpoints: Mapping[str, ModeRun], qrels: Qrels, groups: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    """Per endpoint and group of queries (``forms.form_groups``): rank 1, top 3, MRR@10,
    and the kinds of entry at rank 1 when it was not relevant."""
    return {
        "queries": {group: len(ids) for group, ids in groups.items()},
        "endpoints": {
            name: {group: rank_figures(run.rankings, qrels, ids) for group, ids in groups.items()}
            for name, run in endpoints.items()
        },
        "rank1_misses": {
            name: {
                group: rank1_misses(run.rankings, run.first_kinds, qrels, ids)
                for group, ids in groups.items()
            }
            for name, run in endpoints.items()
        },
    }
