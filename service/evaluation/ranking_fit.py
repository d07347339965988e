"""The learned fusion's ranking model, fitted on the candidates of question sets with known
answers (``Workbench.candidates``).

The weights maximise the probability that a softmax over a question's candidates picks a
relevant one (a listwise ranking loss, ``fitting.listwise``); a logistic map of the weighted
sum to "this candidate is relevant" then makes it a score that means the same across
queries. The sets weigh alike unless ``set_weights`` say otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from service.domain.learned import FEATURES, RankingModel
from service.evaluation.fitting import listwise, logistic
from service.evaluation.workbench import POOL_DEPTH, Candidates


def fit_ranking(
    sets: Mapping[str, Sequence[Candidates]], set_weights: Mapping[str, float] | None = None
) -> RankingModel:
    """The ranking model of the sets' candidates: listwise weights over ``FEATURES`` of the
    learned fusion, then the logistic map of their sum to "relevant", every set weighing
    ``set_weights`` (1 when not given) in both."""
    weights = {name: (set_weights or {}).get(name, 1.0) for name in sets}
    groups = [
        [(_matrix(c.features), np.array(c.relevant, dtype=float)) for c in found if c.features]
        for found in sets.values()
    ]
    beta = listwise(groups, list(weights.values()))
    logits, truth, share = [], [], []
    for name, batch in zip(sets, groups, strict=True):
        count = sum(len(y) for _, y in batch) or 1
        for x, y in batch:
            logits.append(x @ beta)
            truth.append(y)
            share.append(np.full(len(y), weights[name] / count))
    x = np.concatenate(logits)[:, None]
    platt = logistic(x, np.concatenate(truth), np.concatenate(share))
    return RankingModel(
        weights={f: round(float(w), 4) for f, w in zip(FEATURES, beta, strict=True)},
        scale=round(float(platt[1]), 4),
        bias=round(float(platt[0]), 4),
        source=", ".join(
            f"{name} (weight {w:g})" if w != 1 else name for name, w in weights.items()
        ),
    )


def _matrix(rows: Sequence[Mapping[str, float]]) -> np.ndarray:
    return np.array([[row[f] for f in FEATURES] for row in rows], dtype=float)


@dataclass(frozen=True)
class RankingFitness:
    """How a ranking model orders a set's candidates (the pool of ``POOL_DEPTH`` a list)."""

    questions: int
    recall_at_10: float
    hit_at_5: float


def assess_ranking(model: RankingModel, found: Sequence[Candidates]) -> RankingFitness:
    recall, hits = [], []
    for c in found:
        order = sorted(range(len(c.features)), key=lambda i: -model.logit(c.features[i]))
        relevant = sum(c.relevant)
        top = [c.relevant[i] for i in order[:10]]
        recall.append(sum(top) / relevant if relevant else 0.0)
        hits.append(float(any(top[:5])))
    return RankingFitness(len(found), float(np.mean(recall)), float(np.mean(hits)))


def ranking_report(model: RankingModel, fitness: Mapping[str, RankingFitness]) -> str:
    """The ranking model, then how it orders each set's candidates."""
    weights = ", ".join(f"{name} {w:+.3f}" for name, w in model.weights.items())
    lines = [
        f"ranking = logistic({model.scale:+.3f} x ({weights}) {model.bias:+.3f})",
        "",
        f"| set | questions | R@10 | Hit@5 (candidates: {POOL_DEPTH} from each list) |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {name} | {f.questions} | {f.recall_at_10:.3f} | {f.hit_at_5:.3f} |"
        for name, f in fitness.items()
    ]
    return "\n".join(lines)
