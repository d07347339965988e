"""What a sweep draws: strong matches at every threshold, the floor's two errors at every
floor."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.domain.answers.sweep.asked import Asked

THRESHOLDS = tuple(round(0.01 * n, 2) for n in range(5, 96))


@dataclass(frozen=True)
class ThresholdPoint:
    threshold: float
    precision: float | None
    recall: float | None
    youden_j: float | None


@dataclass(frozen=True)
class FloorPoint:
    floor: float
    false_empties: float | None
    false_results: float | None
    top10_cost: float | None


def threshold_curve(asked: Sequence[Asked], floor: float) -> list[ThresholdPoint]:
    """Precision, recall and Youden's J of strong matches at every threshold, at ``floor``."""
    curve = []
    for t in THRESHOLDS:
        right = [a.answered(floor) for a in asked]
        called = [a.strong(floor, t) for a in asked]
        hits = sum(c and r for c, r in zip(called, right, strict=True))
        curve.append(
            ThresholdPoint(
                t, share(hits, sum(called)), share(hits, sum(right)), youden(called, right)
            )
        )
    return curve


def floor_curve(asked: Sequence[Asked]) -> list[FloorPoint]:
    """The floor's false empties, false results and top-10 cost at every floor weighed."""
    answerable = [a for a in asked if a.reference.answerable]
    nothing = [a for a in asked if not a.reference.answerable]
    found = [a for a in answerable if a.found()]
    floors = sorted({f for a in asked for f in a.at})
    return [
        FloorPoint(
            f,
            share(sum(not a.at[f].returned for a in answerable), len(answerable)),
            share(sum(bool(a.at[f].returned) for a in nothing), len(nothing)),
            share(sum(not a.found(f) for a in found), len(found)),
        )
        for f in floors
    ]


def youden(called: Sequence[bool], right: Sequence[bool]) -> float | None:
    positives = sum(right)
    negatives = len(right) - positives
    if not positives or not negatives:
        return None
    hits = sum(c and r for c, r in zip(called, right, strict=True))
    false = sum(c and not r for c, r in zip(called, right, strict=True))
    return round(hits / positives - false / negatives, 6)


def share(part: int, whole: int) -> float | None:
    return round(part / whole, 6) if whole else None
