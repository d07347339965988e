"""How well a confidence tells answered questions from unanswered ones.

A question is *answered* when a relevant document is among the entries ``/v1/retrieve``
returned; the confidence is what the answer says of itself. These functions score that
separation, whatever the base rate: AUC, Youden's J and a reliability table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class Cut:
    """A verdict "answered when confidence >= threshold" and how it does."""

    threshold: float
    j: float
    """Youden's J: the share of answered questions called answered minus the share of
    unanswered ones called answered; 0 for a verdict that ignores the question."""


@dataclass(frozen=True)
class Bin:
    """One group of the reliability table."""

    count: int
    low: float
    high: float
    mean_confidence: float
    observed: float
    """Share of the group's questions that were answered."""


def auc(confidence: Sequence[float], truth: Sequence[bool]) -> float:
    """Area under the ROC curve: the chance an answered question has a higher confidence than
    an unanswered one (Mann-Whitney U / (n+ x n-), ties counted half); NaN without both."""
    scores = np.asarray(confidence, dtype=float)
    labels = np.asarray(truth, dtype=bool)
    answered, unanswered = scores[labels], scores[~labels]
    if not len(answered) or not len(unanswered):
        return float("nan")
    # Every (answered, unanswered) pair: a win counts 1, a tie 1/2 (a few thousand
    # questions make at most a few million pairs).
    higher = answered[:, None] > unanswered[None, :]
    tied = answered[:, None] == unanswered[None, :]
    return float(higher.mean() + 0.5 * tied.mean())


def youden_at(strong: Sequence[bool], truth: Sequence[bool]) -> float:
    """Youden's J of a yes/no verdict per question; NaN without both kinds of question."""
    return _youden(np.asarray(strong, dtype=bool), np.asarray(truth, dtype=bool))


def _youden(called: npt.NDArray[np.bool_], labels: npt.NDArray[np.bool_]) -> float:
    positives = int(labels.sum())
    negatives = len(labels) - positives
    if positives == 0 or negatives == 0:
        return float("nan")
    recall = int((called & labels).sum()) / positives
    false_alarms = int((called & ~labels).sum()) / negatives
    return recall - false_alarms


def best_cut(confidence: Sequence[float], truth: Sequence[bool]) -> Cut | None:
    """The threshold, among the confidences seen, with the highest J; among equals the
    higher (stricter) one. None without both kinds of question."""
    labels = np.asarray(truth, dtype=bool)
    if labels.all() or not labels.any():
        return None
    scores = np.asarray(confidence, dtype=float)
    best: Cut | None = None
    for threshold in np.unique(scores):
        j = _youden(scores >= threshold, labels)
        if best is None or round(j, 12) >= round(best.j, 12):
            best = Cut(float(threshold), j)
    return best


def rate(flags: Sequence[bool]) -> float:
    """Share of questions flagged (called a strong match, say); NaN for none."""
    return float(np.mean(np.asarray(flags, dtype=bool))) if len(flags) else float("nan")


def reliability(confidence: Sequence[float], truth: Sequence[bool], groups: int = 10) -> list[Bin]:
    """Questions sorted by confidence and cut into ``groups`` groups of (nearly) equal size
    (deciles by default): each group's mean confidence against its observed answered rate."""
    if not confidence:
        return []
    scores = np.asarray(confidence, dtype=float)
    labels = np.asarray(truth, dtype=bool)
    order = np.argsort(scores, kind="stable")
    bins = []
    for part in np.array_split(order, min(groups, len(order))):
        bins.append(
            Bin(
                count=len(part),
                low=float(scores[part].min()),
                high=float(scores[part].max()),
                mean_confidence=float(scores[part].mean()),
                observed=float(labels[part].mean()),
            )
        )
    return bins


def calibration_error(bins: Sequence[Bin]) -> float:
    """Expected calibration error: the count-weighted mean gap between a group's mean
    confidence and its observed rate; NaN for no groups."""
    total = sum(b.count for b in bins)
    if not total:
        return float("nan")
    return sum(b.count * abs(b.mean_confidence - b.observed) for b in bins) / total
