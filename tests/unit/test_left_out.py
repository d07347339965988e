"""Leave-one-set-out: each set scored by the models fitted without it, beside those fitted
with it."""

from __future__ import annotations

from service.evaluation.calibrate import fit
from service.evaluation.left_out import leave_one_out, report
from service.evaluation.ranking_fit import assess_ranking, fit_ranking
from tests.unit.test_calibrate import observations
from tests.unit.test_ranking_fit import questions


def test_each_set_is_scored_by_models_that_never_saw_it() -> None:
    pools = {"one": questions(1, 60), "two": questions(2, 60), "three": questions(3, 60)}
    observed = {name: observations(200, n) for n, name in enumerate(pools, start=1)}
    everything = fit(observed)
    model = fit_ranking(pools)
    ranked = {name: assess_ranking(model, found) for name, found in pools.items()}
    found = leave_one_out(pools, observed, everything, ranked, {})
    assert [f.name for f in found] == ["one", "two", "three"]
    for f in found:
        assert f.ranked_with == ranked[f.name]
        # sets drawn alike: what the others teach ranks this one as well as its own fit
        assert f.ranked_without is not None
        assert abs(f.ranked_without.recall_at_10 - f.ranked_with.recall_at_10) < 0.05
        assert f.confidence_without.auc > 0.6
    assert any(f.confidence_without.auc != f.confidence_with.auc for f in found)
    table = report(found)
    assert table.count("\n") == 1 + len(found) and "| one |" in table


def test_without_a_ranking_fit_only_the_confidence_is_left_out() -> None:
    observed = {"one": observations(200, 1), "two": observations(200, 2)}
    found = leave_one_out({}, observed, fit(observed), {}, {})
    assert all(f.ranked_without is None and f.ranked_with is None for f in found)
    assert "| one | - | - | - | - |" in report(found)
