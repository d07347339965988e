"""The sweep benchmark's figures of the questions held out: J, and what a threshold could
reach for them at best."""

from __future__ import annotations

from bench.sweep import ceiling, judged
from tests.unit.test_sweep import team


def test_no_threshold_does_better_for_the_held_out_than_the_best_one_chosen_on_them() -> None:
    references, held_out = team(1), team(2)
    found = ceiling(references, held_out, 0.73, 0.002)
    best, ungated = found["best_threshold_j"], found["ungated_fit_j"]
    assert best is not None and ungated is not None
    assert best >= 0.0 and ungated <= best
    assert ceiling(references, held_out, 0.73, 0.002) == found


def test_held_out_questions_are_judged_at_the_threshold_and_floor_given() -> None:
    held_out = team(3)
    figures = judged(held_out, 0.73, 0.002)
    assert figures["questions"] == 40 and figures["unrelated"] == 20
    assert judged(held_out, 0.05, 0.002)["youden_j"] != figures["youden_j"]
    assert judged(held_out, 0.73, 0.3)["no_result"] == 1.0
