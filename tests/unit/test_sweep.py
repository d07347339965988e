"""The sweep's fit: a threshold and floor kept only where the references left out say
they beat the calibration in force; with too few references, nothing changes."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.answers.sweep import (
    FLOORS,
    MIN_GAIN,
    Asked,
    Judged,
    fit_sweep,
    floor_curve,
    threshold_curve,
)
from service.domain.model.references import Reference


def asked(n: int, answerable: bool, score: float, confidence: float, right: bool = True) -> Asked:
    """A reference whose best result scores ``score``: its answer when it is answerable and
    ``right``; returned at every floor it clears, with ``confidence``."""
    answers = ("a",) if answerable else ()
    first = "a" if answerable and right else "x"
    ranked = ((first, score), ("y", score / 2))
    at = {
        f: Judged(tuple(i for i, s in ranked if s >= f), confidence if score >= f else 0.0)
        for f in FLOORS
    }
    return Asked(
        Reference("team", f"r{n}", f"question {n}?", answers, "admin", "", 0.0), ranked, at
    )


def team(seed: int, answered: int = 40, nothing: int = 20) -> list[Asked]:
    """Answers score high and are told apart by a confidence near 0.6; questions nothing
    answers score low with a lower confidence; a few answerable ones are missed."""
    draw = random.Random(seed)
    found = [
        asked(n, True, draw.uniform(0.05, 0.9), draw.uniform(0.45, 0.95), right=n % 8 != 0)
        for n in range(answered)
    ]
    found = [
        a if a.answered(0.0) else asked(n, True, 0.03, draw.uniform(0.1, 0.5), right=False)
        for n, a in enumerate(found)
    ]
    empty = [
        asked(answered + n, False, draw.uniform(0.0005, 0.02), draw.uniform(0.1, 0.55))
        for n in range(nothing)
    ]
    return found + empty


def test_no_references_change_nothing() -> None:
    report = fit_sweep([], 0.73, 0.002)
    assert not report.changed and (report.threshold, report.floor) == (0.73, 0.002)
    assert report.held_out == {} and report.top10 is None


def test_five_references_keep_the_calibration_in_force() -> None:
    report = fit_sweep(team(1)[:4] + team(1)[-1:], 0.73, 0.002)
    assert not report.changed and "too few" in report.reason


def test_a_floor_that_gives_the_unanswerable_nothing_is_fitted_when_it_costs_no_answer() -> None:
    report = fit_sweep(team(2), 0.73, 0.002)
    assert report.floor > 0.002
    held = report.held_out
    assert held["fitted"].no_result is not None and held["in_force"].no_result is not None
    assert held["fitted"].no_result >= held["in_force"].no_result + MIN_GAIN
    assert (held["fitted"].top10_cost or 0.0) <= 0.01
    assert "floor fitted" in report.reason


def test_a_floor_that_cuts_answers_is_lowered_where_the_unanswerable_still_get_nothing() -> None:
    draw = random.Random(5)
    references = team(5)
    # A few answers score under the floor in force; what nothing answers, far lower still.
    low = [asked(100 + n, True, 0.0015, draw.uniform(0.5, 0.9)) for n in range(6)]
    empty = [asked(200 + n, False, 0.0001, 0.1) for n in range(20)]
    answered = [a for a in references if a.reference.answerable]
    report = fit_sweep(answered + low + empty, 0.73, 0.002)
    assert report.floor < 0.002 and "floor fitted" in report.reason
    before, after = report.held_out["in_force"], report.held_out["fitted"]
    assert (after.top10_cost or 0.0) < (before.top10_cost or 0.0)
    assert after.no_result == before.no_result == 1.0


def test_a_floor_is_not_lowered_where_the_unanswerable_score_near_it() -> None:
    draw = random.Random(5)
    answered = [a for a in team(5) if a.reference.answerable]
    low = [asked(100 + n, True, 0.0015, draw.uniform(0.5, 0.9)) for n in range(6)]
    near = [asked(200 + n, False, 0.0004, 0.1) for n in range(20)]
    report = fit_sweep(answered + low + near, 0.73, 0.002)
    assert report.floor == 0.002 and "floor kept" in report.reason


def test_the_threshold_moves_where_the_folds_left_out_say_it_separates_better() -> None:
    report = fit_sweep(team(3), 0.9, 0.002)
    assert report.threshold < 0.9 and "threshold fitted" in report.reason
    fitted, in_force = report.held_out["fitted"], report.held_out["in_force"]
    assert fitted.youden_j is not None and in_force.youden_j is not None
    assert fitted.youden_j > in_force.youden_j


def test_a_threshold_is_not_lowered_past_the_wrong_answers_the_floor_hides() -> None:
    # Every answer given is right, some with a low confidence; what nothing answers gets
    # nothing at the floor, but with no floor it gets entries the service is as sure of as
    # of right answers: a lower threshold would call those near misses strong.
    draw = random.Random(6)
    right = [asked(n, True, draw.uniform(0.05, 0.9), draw.uniform(0.2, 0.99)) for n in range(30)]
    near = [asked(100 + n, False, 0.001, draw.uniform(0.6, 0.99)) for n in range(15)]
    report = fit_sweep(right + near, 0.73, 0.002)
    assert report.threshold >= 0.73


def test_a_threshold_comes_down_where_what_nothing_answers_would_get_unsure_answers() -> None:
    # The same answers; with no floor, what nothing answers gets entries the service is
    # unsure of: the right answers under 0.73 may be called strong.
    draw = random.Random(6)
    right = [asked(n, True, draw.uniform(0.05, 0.9), draw.uniform(0.2, 0.99)) for n in range(30)]
    far = [asked(100 + n, False, 0.001, draw.uniform(0.0, 0.15)) for n in range(15)]
    report = fit_sweep(right + far, 0.73, 0.002)
    assert report.threshold < 0.73 and "threshold fitted" in report.reason


def test_curves_cover_every_threshold_and_floor() -> None:
    references = team(4)
    thresholds = threshold_curve(references, 0.002)
    assert [p.threshold for p in thresholds][:2] == [0.05, 0.06] and len(thresholds) == 91
    floors = floor_curve(references)
    assert [p.floor for p in floors] == sorted(FLOORS)
    assert floors[0].false_results == 1.0 and floors[0].top10_cost == 0.0


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 60), st.integers(0, 30))
def test_a_kept_fit_beats_the_one_in_force_on_the_references_left_out(
    seed: int, answered: int, nothing: int
) -> None:
    references = team(seed, answered, nothing)
    report = fit_sweep(references, 0.73, 0.002)
    again = fit_sweep(list(reversed(references)), 0.73, 0.002)
    assert (again.threshold, again.floor, again.held_out) == (
        report.threshold,
        report.floor,
        report.held_out,
    )
    assert 0.05 <= report.threshold <= 0.95 and report.floor in (*FLOORS, 0.002)
    if report.floor != 0.002:
        before, after = report.held_out["in_force"], report.held_out["fitted"]
        assert after.no_result is not None and before.no_result is not None
        cut_before, cut_after = before.top10_cost or 0.0, after.top10_cost or 0.0
        guards = after.no_result >= before.no_result + MIN_GAIN
        frees = cut_after <= cut_before - MIN_GAIN and after.no_result >= before.no_result
        assert guards or frees
    if answered < 5:
        assert not report.changed
