"""The ranking model's fit: the intent head, cross-fitted, and the weights over every feature,
on synthetic question sets whose answers depend on what each question asks for."""

from __future__ import annotations

import math
import random

from service.domain.search.intent import KIND_FEATURES, MemoryKind
from service.domain.search.learned import FEATURES
from service.domain.search.list_features import LIST_FEATURES, MEMORY_SCALE
from service.evaluation.intent_fit import cross_fitted, fit_head, folds
from service.evaluation.ranking_fit import assess_ranking, fit_ranking
from service.evaluation.workbench import Candidates, with_asked

KINDS: tuple[MemoryKind, ...] = ("decision", "log", "discussion")


def question(rng: random.Random, asks: MemoryKind, group: str) -> Candidates:
    """Three candidates, one of each kind, equal but for noise in their keyword evidence; the
    one of the kind asked for is relevant. The first dimension of the question's vector says
    "a decision is asked for", the second "the log"."""
    vector = (1.0 if asks == "decision" else 0.0, 1.0 if asks == "log" else 0.0, rng.random())
    rows, relevant = [], []
    for kind in KINDS:
        row = dict.fromkeys(FEATURES, 0.0)
        row["keyword"] = row["keyword_top"] = rng.random()
        row[kind] = 1.0
        rows.append(row)
        relevant.append(kind == asks)
    return Candidates(rows, relevant, list(KINDS), vector, group)


def questions(seed: int, count: int) -> list[Candidates]:
    rng = random.Random(seed)
    asked: tuple[MemoryKind, ...] = ("decision", "log")
    return [question(rng, asked[n % 2], f"ns-{n % 3}") for n in range(count)]


def test_the_head_reads_the_kind_asked_for_from_the_vector() -> None:
    head = fit_head({"set": questions(1, 60)})
    assert head.asked((1.0, 0.0, 0.5))["decision"] > 0.8
    assert head.asked((0.0, 1.0, 0.5))["log"] > 0.8
    assert head.asked((0.0, 1.0, 0.5))["decision"] < 0.2


def test_a_kind_no_question_asks_for_is_never_asked_without_failing_the_fit() -> None:
    head = fit_head({"set": questions(2, 20)})
    assert head.asked((1.0, 0.0, 0.5))["discussion"] < 0.05


def test_cross_fitted_probabilities_come_from_heads_that_did_not_see_the_fold() -> None:
    found = questions(3, 30)
    assert folds(found) == [c.group for c in found]  # three namespaces: one fold each
    assert folds(found[:2]) == ["0", "1"]
    asked = cross_fitted({"set": found})["set"]
    assert len(asked) == len(found)
    for probabilities, c in zip(asked, found, strict=True):
        wanted = "decision" if c.vector[0] else "log"
        assert probabilities[wanted] > 0.5


def test_the_fitted_ranking_puts_the_kind_asked_for_first() -> None:
    sets = {"set": questions(4, 60)}
    model = fit_ranking(sets)
    assert model.weights["decision_asked"] > 0 and model.weights["log_asked"] > 0
    assert model.list_weights is not None and set(model.list_weights) == set(LIST_FEATURES)
    assert model.intent is not None
    fitness = assess_ranking(model, questions(5, 20))
    assert fitness.hit_at_5 == 1.0
    held_out = questions(6, 10)
    for c in held_out:
        rows = with_asked(c, model.intent.asked(c.vector))
        best = max(range(len(rows)), key=lambda n: model.logit(rows[n]))
        assert c.relevant[best]


def test_what_is_asked_fills_the_kind_features() -> None:
    c = questions(7, 1)[0]
    rows = with_asked(c, {"decision": 0.9, "log": 0.2})
    assert rows[0]["decision_asked"] == 0.9 and rows[1]["log_asked"] == 0.2
    assert rows[2]["discussion_asked"] == 0.0
    assert set(KIND_FEATURES) <= set(rows[0])


def pooled(rng: random.Random, size: int, group: str) -> Candidates:
    """A question among ``size`` candidates alike but for noise in their cosine, the
    relevant one a little closer; ``memory`` says how many there are."""
    rows, relevant = [], []
    for n in range(size):
        row = dict.fromkeys(FEATURES, 0.0)
        row["cosine"] = rng.random() * 0.5 + (0.3 if n == 0 else 0.0)
        row["memory"] = math.log1p(size) / MEMORY_SCALE
        row["log"] = 1.0
        rows.append(row)
        relevant.append(n == 0)
    return Candidates(rows, relevant, ["log"] * size, (0.0, 1.0, rng.random()), group)


def test_the_best_of_few_is_likelier_the_answer_than_the_best_of_many() -> None:
    """``memory`` is the same for every candidate of a question, so only the map to a
    probability can weigh it: a candidate as close scores higher where the namespace holds
    less."""
    rng = random.Random(8)
    found = [pooled(rng, 5, "small") for _ in range(60)] + [
        pooled(rng, 80, "large") for _ in range(60)
    ]
    model = fit_ranking({"set": found})
    assert model.weights["memory"] < 0
    assert model.list_weights is not None and model.list_weights["memory"] == 0
    row = {**found[0].features[0], "cosine": 0.6}
    few = model.probability(model.logit({**row, "memory": math.log1p(5) / MEMORY_SCALE}))
    many = model.probability(model.logit({**row, "memory": math.log1p(80) / MEMORY_SCALE}))
    assert few > many
