"""Whether a search's candidates hold an answer at all: the features, the model and its
file, its fit on questions asked at home and elsewhere, and its weight on the scores."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from service.domain.model import Hit
from service.domain.search.answerable import (
    ANSWERABLE_FEATURES,
    RELEVANCE_BOUND,
    AnswerableModel,
    answerable_features,
)
from service.domain.search.fusion import ScoreFusion
from service.domain.search.learned import FEATURES, LearnedFusion, RankingModel
from service.domain.search.list_features import CLOSEST
from service.domain.search.query import Candidate, Lists
from service.errors import ConfigError
from service.evaluation.answerable_fit import fit_answerable, holds_answer, settled_features
from service.evaluation.workbench import Candidates
from tests.fakes import make_entry
from tests.fakes.keyword_store import bounded


def test_the_features_are_the_best_of_the_candidates_and_zero_without_any() -> None:
    rows = [
        {"cosine": 0.2, "keyword": 0.9, "coverage": 0.1, "names": 0.0, "memory": 0.3},
        {"cosine": 0.7, "keyword": 0.1, "coverage": 0.5, "names": 0.5, "memory": 0.3},
    ]
    assert answerable_features(rows, [0.2, 0.5]) == {
        "cosine_best": 0.7,
        "keyword_best": 0.9,
        "coverage_best": 0.5,
        "relevance_best": 0.0,
        "memory": 0.3,
        "names_missing": 0.5,
    }
    assert answerable_features([], []) == dict.fromkeys(ANSWERABLE_FEATURES, 0.0)
    named_nothing = [{"cosine": 0.7, "keyword": 0.1, "coverage": 0.5, "names": 1.0}]
    assert answerable_features(named_nothing, [0.9])["names_missing"] == 0.0


def test_the_closest_vector_counts_even_when_no_candidate_scored_has_one() -> None:
    """The pool's best cosine (``closest``) is the evidence, whichever candidates were
    loaded: candidates all without a vector still say how near the namespace's memory comes."""
    logs = [{"cosine": 0.0, "unembedded": 1.0, "keyword": 0.4, CLOSEST: 0.31}]
    assert answerable_features(logs, [0.3])["cosine_best"] == 0.31


def test_the_best_relevance_is_read_as_bounded_log_odds() -> None:
    rows = [{"cosine": 0.5}, {"cosine": 0.4}]
    assert answerable_features(rows, [0.1, 0.9])["relevance_best"] == pytest.approx(math.log(9))
    assert answerable_features(rows, [0.0, 0.0])["relevance_best"] == pytest.approx(
        math.log(RELEVANCE_BOUND / (1 - RELEVANCE_BOUND))
    )
    assert answerable_features(rows, [1.0, 1.0])["relevance_best"] == pytest.approx(
        -math.log(RELEVANCE_BOUND / (1 - RELEVANCE_BOUND))
    )


def test_the_model_round_trips_through_the_ranking_file(tmp_path: Path) -> None:
    model = RankingModel(
        {"keyword": 1.0},
        1.0,
        0.0,
        answerable=AnswerableModel({"cosine_best": 9.0, "coverage_best": 4.0}, -7.0),
    )
    path = tmp_path / "ranking.json"
    path.write_text(model.to_json(), encoding="utf-8")
    assert RankingModel.load(path).answerable == model.answerable


@pytest.mark.parametrize(
    "answerable",
    [
        '{"weights": {"gossip": 1}, "bias": 0}',
        '{"weights": {"cosine_best": 1}}',
        '{"weights": {"cosine_best": 1e999}, "bias": 0}',
    ],
)
def test_a_model_file_with_a_wrong_answerable_part_is_refused(
    tmp_path: Path, answerable: str
) -> None:
    path = tmp_path / "ranking.json"
    path.write_text(
        f'{{"weights": {{}}, "scale": 1, "bias": 0, "answerable": {answerable}}}',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match="ranking model"):
        RankingModel.load(path)


RANKING = RankingModel({"vector_rank": 1.0}, 1.0, 0.0)
"""Orders the pool by the vector list's ranks: the relevance of a candidate is its rank's."""


def question(rng: random.Random, home: bool) -> Candidates:
    """Ten candidates. At home, one is relevant and close to the question (a high cosine
    and coverage); asked elsewhere, none is and every one is far."""
    rows, relevant = [], []
    for n in range(10):
        answer = home and n == 0
        row = dict.fromkeys(FEATURES, 0.0)
        row["cosine"] = rng.uniform(0.55, 0.8) if answer else rng.uniform(0.1, 0.4)
        row["coverage"] = rng.uniform(0.5, 1.0) if answer else rng.uniform(0.0, 0.4)
        row["keyword"] = rng.uniform(0.0, 0.5)
        row["vector_rank"] = 1.0 / (1 + n)
        rows.append(row)
        relevant.append(answer)
    return Candidates(rows, relevant, elsewhere=not home)


def test_the_fit_tells_questions_memory_answers_from_those_it_cannot() -> None:
    rng = random.Random(7)
    found = [question(rng, home=n % 2 == 0) for n in range(80)]
    model = fit_answerable({"set": found}, RANKING)
    assert model is not None
    assert model.weights["cosine_best"] > 0 and model.weights["coverage_best"] > 0
    home = [model.probability(settled_features(c, RANKING)) for c in found if not c.elsewhere]
    away = [model.probability(settled_features(c, RANKING)) for c in found if c.elsewhere]
    assert min(home) > 0.9 and max(away) < 0.1


def named(found: Candidates, held: float) -> Candidates:
    """``found`` for a question naming something its candidates hold (1) or lack (0)."""
    rows = [{**row, "names": held} for row in found.features]
    return Candidates(rows, found.relevant, elsewhere=found.elsewhere)


def test_missing_names_only_lower_the_probability_the_evidence_gives() -> None:
    rng = random.Random(11)
    found = [question(rng, home=n % 2 == 0) for n in range(80)]
    # Half the questions asked elsewhere look answerable by their evidence, but name what
    # no candidate holds.
    blurred = [
        named(question(rng, home=True), 1.0) if c.elsewhere and n % 4 == 1 else c
        for n, c in enumerate(found)
    ]
    tricked = [
        Candidates(c.features, [False] * len(c.relevant), elsewhere=True)
        if c.elsewhere or n % 4 == 1
        else c
        for n, c in enumerate(blurred)
    ]
    missing = [named(c, 0.0) if c.elsewhere else named(c, 1.0) for c in tricked]
    model = fit_answerable({"set": missing}, RANKING)
    without = fit_answerable({"set": [named(c, 1.0) for c in tricked]}, RANKING)
    assert model is not None and without is not None
    assert model.weights["names_missing"] < 0
    assert without.weights["names_missing"] == 0
    evidence = [f for f in ANSWERABLE_FEATURES if f != "names_missing"]
    assert [model.weights[f] for f in evidence] == [without.weights[f] for f in evidence]
    assert model.bias == without.bias


def test_without_questions_asked_elsewhere_there_is_nothing_to_fit() -> None:
    rng = random.Random(5)
    assert fit_answerable({"set": [question(rng, home=True) for _ in range(10)]}, RANKING) is None


def test_a_question_holds_an_answer_only_when_a_relevant_candidate_would_be_settled() -> None:
    rng = random.Random(3)
    found = question(rng, home=True)
    assert holds_answer(found, {"vector_rank": 1.0})
    # Ordered by the opposite weight, the relevant candidate comes last: with more than
    # ``SETTLED`` candidates it would not be loaded.
    many = Candidates(found.features * 4, found.relevant + [False] * 30)
    assert not holds_answer(many, {"vector_rank": -1.0})


def settled(model: RankingModel, cosine: float) -> list[Candidate]:
    fusion = LearnedFusion(model, ScoreFusion(0.7, bounded(4.0), lambda _: {}), lambda _: {})
    lists = {
        "bm25": [Hit("a", 3.0), Hit("b", 2.0)],
        "vector": [Hit("a", cosine), Hit("b", cosine / 2)],
    }
    found = Lists("billing cache", "ns", lists, (1.0, 0.0))
    candidates = []
    for hit in fusion.fuse(found, 5):
        entry = make_entry(hit.key, "billing uses redis for the cache", "A")
        candidates.append(
            Candidate(entry, entry.text, hit.score, dict(hit.explain), hit.score, hit.features)
        )
    return fusion.settle(found, candidates, True)


def test_the_scores_are_weighed_by_whether_the_candidates_hold_an_answer() -> None:
    ranking = RankingModel({"cosine": 2.0, "keyword": 1.0}, 1.0, 0.0)
    gated = RankingModel(
        ranking.weights, 1.0, 0.0, answerable=AnswerableModel({"cosine_best": 20.0}, -10.0)
    )
    plain, near, far = settled(ranking, 0.9), settled(gated, 0.9), settled(gated, 0.1)
    assert [c.entry.id for c in near] == [c.entry.id for c in plain] == ["a", "b"]
    held = near[0].explain["answerable"].score
    assert held == pytest.approx(
        AnswerableModel({"cosine_best": 20.0}, -10.0).probability({"cosine_best": 0.9}), abs=1e-6
    )
    for with_it, without in zip(near, plain, strict=True):
        assert with_it.score == pytest.approx(without.score * held, abs=1e-6)
        assert with_it.relevance == with_it.score
    # Far from everything, every score falls: an unrelated question's page empties under
    # a floor its home questions clear.
    assert max(c.score for c in far) < 0.01 < min(c.score for c in near)
    assert "answerable" not in plain[0].explain


def test_among_candidates_without_a_vector_the_scores_are_left_be() -> None:
    """A namespace of tier E alone: no candidate has a cosine, the model's main evidence."""
    answerable = AnswerableModel({"cosine_best": 20.0}, -10.0)
    gated = RankingModel({"keyword": 1.0}, 1.0, 0.0, answerable=answerable)
    fusion = LearnedFusion(gated, ScoreFusion(0.7, bounded(4.0), lambda _: {}), lambda _: {})
    lists: dict[str, list[Hit]] = {"bm25": [Hit("a", 3.0)], "vector": []}
    found = Lists("postgres failover", "ns", lists, (1.0, 0.0))
    [hit] = fusion.fuse(found, 5)
    entry = make_entry("a", "postgres failover log", "E")
    candidate = Candidate(entry, entry.text, hit.score, dict(hit.explain), hit.score, hit.features)
    [settled] = fusion.settle(found, [candidate], True)
    assert settled.score == pytest.approx(gated.probability(gated.logit({"keyword": 0.75})))
    assert "answerable" not in settled.explain


def test_log_lines_scored_alone_are_still_weighed_by_the_closest_vector() -> None:
    """Every candidate a search loads is a log line, but the pool held an entry with a vector
    (far from the question): the answerable model judges by that closest vector, where a
    namespace of tier E alone is left be (above)."""
    answerable = AnswerableModel({"cosine_best": 20.0}, -10.0)
    gated = RankingModel({"keyword": 1.0}, 1.0, 0.0, answerable=answerable)
    fusion = LearnedFusion(gated, ScoreFusion(0.7, bounded(4.0), lambda _: {}), lambda _: {})
    lists = {"bm25": [Hit("log", 3.0)], "vector": [Hit("far", 0.1)]}
    found = Lists("postgres failover", "ns", lists, (1.0, 0.0))
    log = {hit.key: hit for hit in fusion.fuse(found, 5)}["log"]
    entry = make_entry("log", "postgres failover log", "E")
    candidate = Candidate(entry, entry.text, log.score, dict(log.explain), log.score, log.features)
    [settled] = fusion.settle(found, [candidate], True)
    held = answerable.probability({"cosine_best": 0.1})
    assert settled.explain["answerable"].score == pytest.approx(held, abs=1e-6)
    assert settled.score == pytest.approx(
        gated.probability(gated.logit({"keyword": 0.75})) * held, abs=1e-6
    )
