"""The verdict figures of the quality benchmark: AUC, Youden's J, reliability."""

from __future__ import annotations

import math

import pytest

from service.evaluation.verdict import (
    Bin,
    Cut,
    auc,
    best_cut,
    calibration_error,
    rate,
    reliability,
    youden_at,
)


def test_auc_is_one_when_every_answered_question_is_more_confident() -> None:
    assert auc([0.9, 0.8, 0.3, 0.1], [True, True, False, False]) == 1.0
    assert auc([0.1, 0.2, 0.8, 0.9], [True, True, False, False]) == 0.0


def test_auc_counts_the_share_of_pairs_won() -> None:
    # Pairs (answered, unanswered): 0.9>0.5, 0.9>0.2, 0.4<0.5, 0.4>0.2 -> 3 of 4.
    assert auc([0.9, 0.4, 0.5, 0.2], [True, True, False, False]) == 0.75


def test_auc_counts_ties_half() -> None:
    assert auc([0.5, 0.5, 0.5, 0.5], [True, False, True, False]) == 0.5
    # (0.7, 0.7) ties, (0.7, 0.2) wins, (0.9, *) wins: (1 x 0.5 + 3) / 4.
    assert auc([0.9, 0.7, 0.7, 0.2], [True, True, False, False]) == pytest.approx(0.875)


def test_auc_needs_both_kinds_of_question() -> None:
    assert math.isnan(auc([0.9, 0.2], [True, True]))
    assert math.isnan(auc([], []))


def test_youden_is_recall_minus_false_alarms() -> None:
    truth = [True, True, True, True, False, False, False, False]
    strong = [True, True, True, False, True, False, False, False]
    assert youden_at(strong, truth) == pytest.approx(0.75 - 0.25)


def test_a_verdict_that_ignores_the_question_scores_zero() -> None:
    truth = [True, False, True]
    assert youden_at([True, True, True], truth) == 0.0
    assert youden_at([False, False, False], truth) == 0.0


def test_best_cut_finds_the_threshold_that_separates() -> None:
    confidence = [0.9, 0.8, 0.6, 0.55, 0.4, 0.3]
    truth = [True, True, True, False, False, False]
    assert best_cut(confidence, truth) == Cut(0.6, 1.0)


def test_best_cut_prefers_the_stricter_of_equal_thresholds() -> None:
    # >= 0.8 gives 1/2 - 0 and >= 0.5 gives 1 - 1/2: both J 0.5; the stricter wins.
    confidence = [0.8, 0.3, 0.5, 0.2]
    truth = [True, True, False, False]
    cut = best_cut(confidence, truth)
    assert cut is not None
    assert cut.threshold == 0.8
    assert cut.j == pytest.approx(0.5)


def test_best_cut_with_tied_confidences_cuts_between_values_only() -> None:
    confidence = [0.7, 0.7, 0.7, 0.2]
    truth = [True, True, False, False]
    assert best_cut(confidence, truth) == Cut(0.7, 0.5)


def test_no_cut_without_both_kinds_of_question() -> None:
    assert best_cut([0.9, 0.1], [False, False]) is None


def test_rate_is_the_share_of_questions_flagged() -> None:
    assert rate([True, False, False, True]) == 0.5
    assert math.isnan(rate([]))


def test_reliability_groups_by_confidence_into_equal_parts() -> None:
    confidence = [0.1, 0.9, 0.2, 0.8, 0.3, 0.7]
    truth = [False, True, False, True, True, False]
    bins = reliability(confidence, truth, groups=2)
    assert [(b.count, b.low, b.high, b.observed) for b in bins] == [
        (3, 0.1, 0.3, 1 / 3),
        (3, 0.7, 0.9, 2 / 3),
    ]
    assert [b.mean_confidence for b in bins] == [pytest.approx(0.2), pytest.approx(0.8)]


def test_reliability_of_few_questions_has_no_empty_groups() -> None:
    bins = reliability([0.4, 0.6], [False, True])
    assert [b.count for b in bins] == [1, 1]
    assert reliability([], []) == []


def test_calibration_error_weights_each_group_s_gap_by_its_size() -> None:
    bins = [Bin(3, 0.1, 0.3, 0.2, 0.0), Bin(1, 0.8, 0.8, 0.8, 1.0)]
    assert calibration_error(bins) == pytest.approx((3 * 0.2 + 1 * 0.2) / 4)
    assert math.isnan(calibration_error([]))
