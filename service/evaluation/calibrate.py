"""``answer_confidence`` fitted on the observations of question sets with known answers
(``Workbench.observe``): a logistic model of "a relevant entry is among those returned" over
the evidence each answer gathered, and the threshold where Youden's J is best."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from service.domain.answers.confidence import FEATURES, Calibration
from service.evaluation.fitting import logistic
from service.evaluation.verdict import Bin, auc, best_cut, calibration_error, reliability, youden_at
from service.evaluation.workbench import Observation

ELSEWHERE_SHARE = 0.1
"""The questions asked elsewhere weigh, together, this share of the set's own in the fit:
enough to teach the model what "never recorded" looks like, not so much that it skews the
probabilities of the questions agents really ask. Most of those questions already get no
entry (the relevance floor, with the answerable model of ``service.domain.search.answerable``),
so a small share suffices: at 0.1 rather than 0.2 every dev set's AUC and J rose, and the
strong matches of questions asked elsewhere stayed at 2 % or fewer."""
THRESHOLDS = tuple(round(0.01 * n, 2) for n in range(5, 96))
"""The strong_match thresholds considered: 0.05 to 0.95."""


def fit(sets: Mapping[str, Sequence[Observation]]) -> Calibration:
    """The logistic model of ``answered`` over the features every observation has, all
    sets pooled; its threshold is the one whose worst Youden's J over the sets (asked where
    they belong) is best, so that one threshold serves every kind of question."""
    observed = [o for found in sets.values() for o in found]
    names = [f for f in FEATURES if all(f in o.features for o in observed)]
    x = np.array([[o.features[f] for f in names] for o in observed], dtype=float)
    y = np.array([o.answered for o in observed], dtype=float)
    home = sum(1 for o in observed if not o.elsewhere)
    away = len(observed) - home
    away_weight = ELSEWHERE_SHARE * home / away if away else 0.0
    weights = np.array([away_weight if o.elsewhere else 1.0 for o in observed])
    coefficients = logistic(x, y, weights)
    fitted = Calibration(
        bias=round(float(coefficients[0]), 4),
        weights={f: round(float(w), 4) for f, w in zip(names, coefficients[1:], strict=True)},
        threshold=0.5,
        source=", ".join(sets),
    )
    return replace(fitted, threshold=_threshold(fitted, sets))


def _threshold(calibration: Calibration, sets: Mapping[str, Sequence[Observation]]) -> float:
    def worst_j(threshold: float) -> float:
        found = []
        for observed in sets.values():
            # The sets' own namespaces set it, as their figures are reported.
            own = [o for o in observed if not o.elsewhere and not o.small]
            called = [calibration.probability(o.features) >= threshold for o in own]
            j = youden_at(called, [o.answered for o in own])
            found.append(-1.0 if math.isnan(j) else j)
        return min(found, default=-1.0)

    # Among equals, the stricter threshold.
    return max(THRESHOLDS, key=lambda t: (round(worst_j(t), 9), t))


@dataclass(frozen=True)
class Fitness:
    """How a calibration does on observations."""

    questions: int
    answered: int
    auc: float
    j: float
    """Youden's J of ``confidence >= threshold``."""
    best_j: float
    best_threshold: float
    calibration_error: float
    bins: list[Bin]
    elsewhere: int
    elsewhere_confidence: float
    """Mean confidence of the questions asked where nothing answers them."""
    elsewhere_strong: float
    """Share of those called a strong match."""


def assess(calibration: Calibration, observed: Sequence[Observation]) -> Fitness:
    """How ``calibration`` does on a set's questions asked in its own namespaces (those
    asked in small namespaces taught the fit; ``bench.small`` measures them)."""
    observed = [o for o in observed if not o.small]
    own = [o for o in observed if not o.elsewhere]
    away = [calibration.probability(o.features) for o in observed if o.elsewhere]
    confidence = [calibration.probability(o.features) for o in own]
    truth = [o.answered for o in own]
    cut = best_cut(confidence, truth)
    bins = reliability(confidence, truth)
    return Fitness(
        questions=len(own),
        answered=sum(truth),
        auc=auc(confidence, truth),
        j=youden_at([c >= calibration.threshold for c in confidence], truth),
        best_j=float("nan") if cut is None else cut.j,
        best_threshold=float("nan") if cut is None else cut.threshold,
        calibration_error=calibration_error(bins),
        bins=bins,
        elsewhere=len(away),
        elsewhere_confidence=float(np.mean(away)) if away else float("nan"),
        elsewhere_strong=float(np.mean([c >= calibration.threshold for c in away]))
        if away
        else float("nan"),
    )


def report(calibration: Calibration, fitness: Mapping[str, Fitness]) -> str:
    """The model, then per set its AUC, J and reliability table."""
    weights = ", ".join(f"{name} {w:+.3f}" for name, w in calibration.weights.items())
    lines = [f"confidence = logistic({calibration.bias:+.3f}, {weights})"]
    for name, f in fitness.items():
        lines += [
            "",
            f"## {name}: {f.questions} questions, {f.answered} answered among those returned",
            f"AUC {f.auc:.3f}; J {f.j:.3f} at threshold {calibration.threshold:.2f} "
            f"(best J {f.best_j:.3f} at {f.best_threshold:.2f}); calibration error "
            f"{f.calibration_error:.3f}",
        ]
        if f.elsewhere:
            lines.append(
                f"asked in another namespace ({f.elsewhere}): mean confidence "
                f"{f.elsewhere_confidence:.3f}, strong match {f.elsewhere_strong:.1%}"
            )
        lines += ["", "| confidence | questions | mean | answered |", "|---|---:|---:|---:|"]
        lines += [
            f"| {b.low:.2f} to {b.high:.2f} | {b.count} | {b.mean_confidence:.3f} "
            f"| {b.observed:.3f} |"
            for b in f.bins
        ]
    lines += ["", f"recommended: STRATA_STRONG_MATCH_THRESHOLD={calibration.threshold:.2f}"]
    return "\n".join(lines)
