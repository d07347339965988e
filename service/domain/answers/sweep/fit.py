"""The threshold and floor fitted on the references asked, each kept only where it beats
the calibration in force on the references the folds leave out (the terms: the package's
docstring)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from service.domain.answers.sweep.asked import Asked
from service.domain.answers.sweep.curves import (
    THRESHOLDS,
    FloorPoint,
    ThresholdPoint,
    floor_curve,
    share,
    threshold_curve,
    youden,
)

FOLDS = 5
MOST_COST = 0.01
"""The most of the answers within the first ten that a fitted floor may cut."""
MIN_GAIN = 0.01
"""How much better than the calibration in force, on the references left out, a fit must
be to be kept."""
FLOOR_MARGIN = 4.0
"""A floor is raised only where every reference's answer within the first ten clears it
this many times over (a floor just under the lowest answer the references hold cuts answers
of questions they do not hold), and lowered only where what nothing answers scores this many
times under it."""
SMOOTHING = 10
"""A threshold's Youden's J is judged as the mean over it and this many thresholds on
either side (0.01 apart): a few references make a ragged curve, whose single best point is
chance."""
RESAMPLES = 200
SURELY = 0.975
"""A fitted threshold is kept only when it beats the one in force in this share of the
resamples of the references left out (the bound of a two-sided 95 % interval): a gain a
few references happen to show is not one. On the conversations, where no threshold gains
much, draws of 40 references passed at 0.9 and at 0.95 and cost the other questions 0.049
and 0.033 of J; at 0.975 one draw in 20 on locomo-dev still cost 0.032, its references
agreeing in every fold, while climate-fever-dev's and a team's own real gains pass (98 %
and over)."""
MIN_ANSWERABLE = 5
"""Fewest references naming their answers for any fit."""
MIN_NOTHING = 3
"""Fewest references that nothing answers for a floor to be fitted."""
MIN_EACH_SIDE = 5
"""Fewest answered and unanswered references for a threshold to be fitted, and fewest given
wrong entries. Where fewer are, the questions nothing answers that the floor gives nothing
count by the answers they get with no floor: those a question near them would get, as sure
as the service would be of them. The floor hides where the wrong answers a lower threshold
would call strong begin: a team whose unanswerable references all got nothing saw any lower
threshold do better, and was given 0.1; counting none of them, a memory whose answers are
rarely wrong kept a threshold 0.45 above the best one (adr-dev under a calibration fitted
without it); counting them where the wrong answers given were enough cost climate-fever-dev
two thirds of its gain under a calibration fitted without it."""


@dataclass(frozen=True)
class Figures:
    """A threshold and floor judged on some references."""

    youden_j: float | None
    no_result: float | None
    """Of the references nothing answers, the share given no entry."""
    top10_cost: float | None

    def to_json(self) -> dict[str, float | None]:
        return {
            "youden_j": self.youden_j,
            "no_result": self.no_result,
            "top10_cost": self.top10_cost,
        }


@dataclass(frozen=True)
class SweepReport:
    references: int
    answerable: int
    threshold: float
    """The threshold from now on: the fitted one, or the one in force."""
    floor: float
    changed: bool
    reason: str
    top10: float | None
    held_out: dict[str, Figures]
    """``in_force`` and ``fitted`` on the references the folds left out; empty when too
    few to fit."""
    thresholds: list[ThresholdPoint]
    """Strong matches at every threshold, at the floor from now on."""
    floors: list[FloorPoint]
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    """Per reference: id, question, answerable, rank, answer_confidence, strong_match (at
    the floor and threshold from now on)."""

    @property
    def figures(self) -> dict[str, Any]:
        """What a kept fit keeps of the report (JSON)."""
        return {
            "references": self.references,
            "answerable": self.answerable,
            "reason": self.reason,
            "top10": self.top10,
            "held_out": {name: f.to_json() for name, f in self.held_out.items()},
            "thresholds": [asdict(p) for p in self.thresholds],
            "floors": [asdict(p) for p in self.floors],
        }


def fit_sweep(asked: Sequence[Asked], threshold: float, floor: float) -> SweepReport:
    """The threshold and floor the references support, each kept only when, fitted on the
    folds' other references, it beats the one in force (``threshold``, ``floor``) on the
    references each fold leaves out; with too few references, what is in force."""
    answerable = [a for a in asked if a.reference.answerable]
    nothing = [a for a in asked if not a.reference.answerable]
    reasons = []
    new_floor, new_threshold = floor, threshold
    held: dict[str, Figures] = {}
    if len(answerable) < MIN_ANSWERABLE:
        reasons.append(
            f"too few references to fit: naming their answers {len(answerable)}, "
            f"{MIN_ANSWERABLE} needed"
        )
    else:
        folds = _folds(asked)
        if len(nothing) >= MIN_NOTHING:
            kept, why = _cross_validate(
                folds, lambda train: _fit_floor(train, floor), floor, _floor_gain
            )
            reasons.append(why)
            if kept:
                new_floor = _fit_floor(asked, floor)
        else:
            reasons.append(
                f"floor kept: references saying nothing answers {len(nothing)}, "
                f"{MIN_NOTHING} needed"
            )
        unfloored = _given_wrong(asked, new_floor, False) < MIN_EACH_SIDE
        wrong = _given_wrong(asked, new_floor, unfloored)
        if wrong < MIN_EACH_SIDE:
            kept_t, why_t = (
                False,
                (f"threshold kept: references given wrong entries {wrong}, {MIN_EACH_SIDE} needed"),
            )
        else:
            kept_t, why_t = _cross_validate(
                folds,
                lambda train: fit_threshold(train, new_floor, threshold, unfloored=unfloored),
                threshold,
                lambda base, fit, test: _threshold_gain(base, fit, test, new_floor),
            )
        reasons.append(why_t)
        if kept_t:
            new_threshold = fit_threshold(asked, new_floor, threshold, unfloored=unfloored)
        held = {
            "in_force": _figures(folds, lambda _: (floor, threshold)),
            "fitted": _figures(
                folds,
                lambda train: (
                    _fit_floor(train, floor) if new_floor != floor else floor,
                    fit_threshold(train, new_floor, threshold, unfloored=unfloored)
                    if new_threshold != threshold
                    else threshold,
                ),
            ),
        }
    changed = (new_floor, new_threshold) != (floor, threshold)
    return SweepReport(
        references=len(asked),
        answerable=len(answerable),
        threshold=new_threshold,
        floor=new_floor,
        changed=changed,
        reason="; ".join(reasons) if reasons else "no references",
        top10=share(sum(a.found() for a in answerable), len(answerable)),
        held_out=held,
        thresholds=threshold_curve(asked, new_floor),
        floors=floor_curve(asked),
        outcomes=[_outcome(a, new_floor, new_threshold) for a in asked],
    )


def _fit_floor(train: Sequence[Asked], floor: float) -> float:
    """Where ``floor`` cuts more than ``MOST_COST`` of the answers within the first ten, the
    highest lower floor that cuts the fewest, provided what nothing answers, given nothing
    at ``floor``, scores ``FLOOR_MARGIN`` times under it; else the floor that gives the most
    references nothing answers no entry while cutting at most ``MOST_COST`` of the answers
    (the lowest of equals). ``floor`` when the references say nothing of it."""
    nothing = [a for a in train if not a.reference.answerable]
    found = [a for a in train if a.reference.answerable and a.found()]
    if not nothing or not found:
        return floor
    floors = sorted({f for a in train for f in a.at})

    def cut(f: float) -> float:
        return sum(not a.found(f) for a in found) / len(found)

    if cut(floor) > MOST_COST:
        empty = [a for a in nothing if not a.at[floor].returned]
        lower = [
            f
            for f in floors
            if f < floor and cut(f) < cut(floor) and all(a.best() * FLOOR_MARGIN < f for a in empty)
        ]
        return max(lower, key=lambda f: (-cut(f), f), default=floor)
    best, best_empty = floor, -1.0
    for f in floors:
        if cut(f * FLOOR_MARGIN) > MOST_COST:
            break  # a higher floor cuts at least as much
        empty_share = sum(not a.at[f].returned for a in nothing) / len(nothing)
        if empty_share > best_empty:
            best, best_empty = f, empty_share
    return best


def fit_threshold(
    train: Sequence[Asked], floor: float, threshold: float, *, unfloored: bool = False
) -> float:
    """The threshold of the best Youden's J at ``floor``, smoothed over its neighbours
    (the middle of a run of equals); ``threshold`` when the references hold too few
    answered or unanswered ones. ``unfloored``: the questions nothing answers that ``floor``
    gives nothing count by their answers with no floor (``MIN_EACH_SIDE``)."""
    right = [a.answered(floor) for a in train]
    if sum(right) < MIN_EACH_SIDE or len(right) - sum(right) < MIN_EACH_SIDE:
        return threshold
    called = [[a.strong(_judged_at(a, floor, unfloored), t) for a in train] for t in THRESHOLDS]
    raw = [youden(c, right) or -1.0 for c in called]
    smooth = [
        sum(window) / len(window)
        for n in range(len(raw))
        if (window := raw[max(0, n - SMOOTHING) : n + SMOOTHING + 1])
    ]
    best = max(smooth)
    tied = [t for j, t in zip(smooth, THRESHOLDS, strict=True) if j >= best - 1e-9]
    return tied[len(tied) // 2]


def _judged_at(a: Asked, floor: float, unfloored: bool) -> float:
    """The floor whose answer to ``a`` a threshold is fitted by: ``floor``; with
    ``unfloored``, no floor for a question nothing answers that ``floor`` gives nothing."""
    if not unfloored or a.reference.answerable or a.at[floor].returned:
        return floor
    return min(a.at)


def _given_wrong(asked: Sequence[Asked], floor: float, unfloored: bool) -> int:
    """How many of ``asked`` are given entries that do not answer them (``_judged_at``)."""
    at = [_judged_at(a, floor, unfloored) for a in asked]
    return sum(bool(a.at[f].returned) and not a.answered(f) for a, f in zip(asked, at, strict=True))


def _cross_validate(
    folds: list[list[Asked]],
    fit: Callable[[Sequence[Asked]], float],
    in_force: float,
    gain: Callable[[float, list[float], list[list[Asked]]], tuple[bool, str]],
) -> tuple[bool, str]:
    """Whether ``fit``, made on each fold's other references, beats ``in_force`` on the
    references the folds leave out, and why."""
    return gain(in_force, [fit(_rest(folds, n)) for n in range(len(folds))], folds)


def _rest(folds: list[list[Asked]], left_out: int) -> list[Asked]:
    return [a for n, fold in enumerate(folds) if n != left_out for a in fold]


def _floor_gain(base: float, fitted: list[float], folds: list[list[Asked]]) -> tuple[bool, str]:
    before = _pooled(folds, [base] * len(folds), None)
    after = _pooled(folds, fitted, None)
    if after.no_result is None or before.no_result is None:
        return False, "floor kept: no reference says nothing answers"
    cut_before, cut_after = before.top10_cost or 0.0, after.top10_cost or 0.0
    # Kept when it gives more unanswerable questions nothing at no more cost, or cuts fewer
    # answers and gives no more of them something.
    guards = after.no_result >= before.no_result + MIN_GAIN
    guards = guards and cut_after <= max(MOST_COST, cut_before)
    frees = cut_after <= cut_before - MIN_GAIN and after.no_result >= before.no_result
    verdict = "fitted" if guards or frees else "kept"
    return (
        guards or frees,
        f"floor {verdict}: left out, the unanswerable given nothing {before.no_result:.3f} -> "
        f"{after.no_result:.3f}, top-10 cost {before.top10_cost or 0:.3f} -> "
        f"{after.top10_cost or 0:.3f}",
    )


def _threshold_gain(
    base: float, fitted: list[float], folds: list[list[Asked]], floor: float
) -> tuple[bool, str]:
    before = _pooled(folds, [floor] * len(folds), [base] * len(folds))
    after = _pooled(folds, [floor] * len(folds), fitted)
    if before.youden_j is None or after.youden_j is None:
        return False, "threshold kept: the references answered or not are too few"
    surely = _surely_better(folds, floor, base, fitted)
    better = after.youden_j >= before.youden_j + MIN_GAIN and surely
    verdict = "fitted" if better else "kept"
    return (
        better,
        f"threshold {verdict}: left out, Youden's J {before.youden_j:.3f} -> "
        f"{after.youden_j:.3f}, better in {surelyshare(folds, floor, base, fitted):.0%} of "
        "resamples",
    )


def surelyshare(folds: list[list[Asked]], floor: float, base: float, fitted: list[float]) -> float:
    """The share of resamples of the references left out (drawn with replacement, the same
    draws every time) in which the fitted thresholds give a better Youden's J than
    ``base``."""
    pairs = [
        (a.strong(floor, base), a.strong(floor, t), a.answered(floor))
        for fold, t in zip(folds, fitted, strict=True)
        for a in fold
    ]
    draw = random.Random(len(pairs))
    wins = 0
    for _ in range(RESAMPLES):
        sample = [pairs[draw.randrange(len(pairs))] for _ in pairs]
        right = [r for _, _, r in sample]
        before = youden([b for b, _, _ in sample], right)
        after = youden([f for _, f, _ in sample], right)
        wins += before is not None and after is not None and after > before
    return wins / RESAMPLES


def _surely_better(
    folds: list[list[Asked]], floor: float, base: float, fitted: list[float]
) -> bool:
    return surelyshare(folds, floor, base, fitted) >= SURELY


def _figures(
    folds: list[list[Asked]], fit: Callable[[Sequence[Asked]], tuple[float, float]]
) -> Figures:
    chosen = [fit(_rest(folds, n)) for n in range(len(folds))]
    return _pooled(folds, [f for f, _ in chosen], [t for _, t in chosen])


def _pooled(
    folds: list[list[Asked]], floors: list[float], thresholds: list[float] | None
) -> Figures:
    """Each fold's references judged at its floor (and threshold), pooled."""
    called, right, empty, cut = [], [], [], []
    judged: list[float | None] = list(thresholds) if thresholds else [None] * len(folds)
    for test, f, t in zip(folds, floors, judged, strict=True):
        for a in test:
            if a.reference.answerable:
                if a.found():
                    cut.append(not a.found(f))
            else:
                empty.append(not a.at[f].returned)
            if t is not None:
                called.append(a.strong(f, t))
                right.append(a.answered(f))
    return Figures(
        youden(called, right) if thresholds is not None else None,
        share(sum(empty), len(empty)),
        share(sum(cut), len(cut)),
    )


def _folds(asked: Sequence[Asked]) -> list[list[Asked]]:
    """``FOLDS`` folds, each with its share of answerable references and of the others,
    by a hash of each reference's question (the same questions, the same folds, whatever
    ids they were given)."""
    ordered = sorted(
        asked,
        key=lambda a: (not a.reference.answerable, _digest(a.reference.question), a.reference.id),
    )
    folds: list[list[Asked]] = [[] for _ in range(min(FOLDS, len(asked)) or 1)]
    for n, a in enumerate(ordered):
        folds[n % len(folds)].append(a)
    return folds


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _outcome(a: Asked, floor: float, threshold: float) -> dict[str, Any]:
    return {
        "id": a.reference.id,
        "question": a.reference.question,
        "answerable": a.reference.answerable,
        "rank": a.rank(),
        "answer_confidence": a.at[floor].confidence,
        "strong_match": a.strong(floor, threshold),
    }
