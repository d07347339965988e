"""Fitting answer_confidence: the logistic model, its threshold, and how it is assessed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from service.domain.answers.confidence import SHIPPED, Calibration
from service.errors import ConfigError
from service.evaluation.calibrate import assess, fit, report
from service.evaluation.workbench import Observation


def observations(n: int = 400, seed: int = 7) -> list[Observation]:
    """Answered questions have a wider margin and cover more of the question; agreement is
    noise. Every fourth question is also asked elsewhere, where every feature is low."""
    rng = random.Random(seed)
    found = []
    for i in range(n):
        answered = rng.random() < 0.7
        margin = rng.gauss(0.15 if answered else 0.07, 0.05)
        coverage = rng.gauss(0.6 if answered else 0.45, 0.15)
        features = {"margin": margin, "coverage": coverage, "agreement": rng.random()}
        found.append(Observation(features, 0.5, answered))
        if i % 4 == 0:
            low = {"margin": rng.gauss(0.04, 0.02), "coverage": 0.1, "agreement": 0.0}
            found.append(Observation(low, 0.5, False, elsewhere=True))
    return found


def test_fit_weighs_the_features_that_separate_and_not_the_noise() -> None:
    calibration = fit({"synthetic": observations()})
    assert calibration.weights["margin"] > 5
    assert calibration.weights["coverage"] > 1
    assert abs(calibration.weights["agreement"]) < 0.5 * calibration.weights["coverage"]


def test_fit_chooses_the_threshold_of_best_j_and_assess_reports_it() -> None:
    observed = observations()
    calibration = fit({"synthetic": observed})
    fitness = assess(calibration, observed)
    assert fitness.auc > 0.8
    assert fitness.j == pytest.approx(fitness.best_j, abs=0.02)
    assert 0 < calibration.threshold < 1
    assert fitness.questions == 400 and fitness.elsewhere == 100
    assert fitness.elsewhere_confidence < 0.3
    assert sum(b.count for b in fitness.bins) == 400


def test_a_fitted_model_is_calibrated_on_its_own_set() -> None:
    observed = observations(2000)
    fitness = assess(fit({"synthetic": observed}), observed)
    assert fitness.calibration_error < 0.05


def test_questions_asked_elsewhere_pull_their_kind_down_without_moving_the_rest() -> None:
    own = [o for o in observations() if not o.elsewhere]
    with_elsewhere = fit({"synthetic": observations()})
    without = fit({"synthetic": own})
    low = {"margin": 0.02, "coverage": 0.1, "agreement": 0.0}
    assert with_elsewhere.probability(low) < without.probability(low)
    mean = sum(with_elsewhere.probability(o.features) for o in own) / len(own)
    assert mean == pytest.approx(0.7, abs=0.08)


def test_report_shows_auc_j_and_the_reliability_table() -> None:
    observed = observations()
    calibration = fit({"synthetic": observed})
    text = report(calibration, {"synthetic": assess(calibration, observed)})
    assert "## synthetic: 400 questions" in text
    assert "| confidence | questions | mean | answered |" in text
    assert "asked in another namespace (100)" in text
    assert text.endswith(f"STRATA_STRONG_MATCH_THRESHOLD={calibration.threshold:.2f}")


def test_a_calibration_reads_back_as_written(tmp_path: Path) -> None:
    calibration = fit({"synthetic": observations()})
    path = tmp_path / "calibration.json"
    path.write_text(calibration.to_json())
    assert Calibration.load(path) == calibration


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("not json", "calibration"),
        ('{"bias": 0, "weights": {"luck": 1}, "threshold": 0.5}', "luck"),
        ('{"bias": 0, "weights": {}, "threshold": 2}', "threshold"),
        ('{"weights": {}, "threshold": 0.5}', "bias"),
    ],
)
def test_a_bad_calibration_file_is_a_config_error_naming_the_problem(
    tmp_path: Path, text: str, named: str
) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=named):
        Calibration.load(path)


def test_the_shipped_calibration_trusts_a_best_result_that_stands_out() -> None:
    shipped = Calibration.load(SHIPPED)
    common = {"agreement": 0.6, "coverage": 0.5, "cosine": 0.5, "keyword": 0.4}
    common |= {"found": 0.6, "match_margin": 0.2}
    standing_out = shipped.probability({**common, "margin": 0.5, "runners_up": 0.1})
    crowded = shipped.probability({**common, "margin": 0.05, "runners_up": 0.55})
    assert standing_out > crowded + 0.2
    assert 0.3 <= shipped.threshold <= 0.9


def test_the_threshold_serves_every_set_not_only_the_largest() -> None:
    # One set is told apart at 0.5 and above; a second, smaller one only lower down.
    def set_of(n: int, answered_margin: float, seed: int) -> list[Observation]:
        rng = random.Random(seed)
        found = []
        for _ in range(n):
            answered = rng.random() < 0.5
            margin = rng.gauss(answered_margin if answered else 0.05, 0.02)
            found.append(Observation({"margin": margin}, 0.5, answered))
        return found

    sets = {"big": set_of(1000, 0.2, 1), "small": set_of(200, 0.09, 2)}
    calibration = fit(sets)
    worst = min(assess(calibration, found).j for found in sets.values())
    pooled_only = fit({"both": [o for found in sets.values() for o in found]})
    assert worst >= min(assess(pooled_only, found).j for found in sets.values())
    assert worst > 0.5
