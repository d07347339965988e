"""The strong_match threshold sweep."""

from __future__ import annotations

import pytest

from service.calibrate import Observation, Point, recommend, sweep


def observations() -> list[Observation]:
    answered = [Observation(r, True) for r in (0.9, 0.8, 0.75, 0.5)]
    unanswered = [Observation(r, False) for r in (0.7, 0.4, 0.3, 0.2)]
    return answered + unanswered


def test_sweep_counts_precision_recall_and_false_alarms() -> None:
    point = sweep(observations(), [0.6])[0]
    assert point == Point(0.6, strong=4, precision=0.75, recall=0.75, false_alarms=0.25)
    assert point.f1 == pytest.approx(0.75)
    assert point.youden == pytest.approx(0.5)


def test_no_strong_match_is_precise_by_convention_and_recalls_nothing() -> None:
    point = sweep(observations(), [0.95])[0]
    assert (point.strong, point.precision, point.recall, point.youden) == (0, 1.0, 0.0, 0.0)


def test_recommendation_separates_rather_than_calls_everything_strong() -> None:
    # Most questions answerable: F1 would pick "always strong"; J does not.
    observed = [Observation(r, True) for r in (0.9, 0.85, 0.8, 0.3, 0.25)] + [
        Observation(0.2, False),
        Observation(0.35, False),
    ]
    points = sweep(observed, [0.1, 0.5, 0.95])
    assert max(points, key=lambda p: p.f1).threshold == 0.1
    assert recommend(points).threshold == 0.5


def test_ties_go_to_the_stricter_threshold() -> None:
    points = sweep(observations(), [0.55, 0.6, 0.65])
    assert recommend(points).threshold == 0.65
