"""What a question asks for, read from its vector and its words, and how the learned fusion
weighs a candidate's kind by it."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.entries import Tier
from service.domain.model import Hit
from service.domain.search.fusion import ScoreFusion
from service.domain.search.intent import (
    KIND_FEATURES,
    IntentHead,
    asks_for_decision,
    kind_features,
    kind_of,
)
from service.domain.search.learned import LearnedFusion, RankingModel, with_log_odds
from service.domain.search.list_features import LIST_FEATURES
from service.domain.search.query import Candidate, Lists
from service.errors import ConfigError
from tests.fakes import make_entry
from tests.fakes.keyword_store import bounded


@pytest.mark.parametrize(
    "question",
    [
        "what did we decide about the ledger database?",
        "Current DECISION on the cache",
        "ledger database decision",
        "which broker was chosen for billing",
        "have we agreed on the retry policy?",
        "the ADR for log retention",
        "decisions about hosting",
    ],
)
def test_words_of_deciding_make_a_question_about_decisions(question: str) -> None:
    assert asks_for_decision(question)


@pytest.mark.parametrize(
    "question",
    [
        "which database does the ledger use?",
        "when did the deploy fail?",
        "undecided tickets",  # a word holding a cue is not the cue
        "decisive moments",
        "",
    ],
)
def test_other_questions_are_not(question: str) -> None:
    assert not asks_for_decision(question)


def test_a_decision_is_an_entry_recorded_as_one_and_the_tiers_say_the_rest() -> None:
    assert kind_of(make_entry("d", "x", "C", type="decision")) == "decision"
    assert kind_of(make_entry("a", "x", "A", type="decision")) == "decision"
    assert kind_of(make_entry("a", "x", "A")) == "fact"  # durable facts are tier A too
    assert kind_of(make_entry("f", "x", "A", type="fact")) == "fact"
    assert kind_of(make_entry("e", "x", "E")) == "log"
    assert kind_of(make_entry("c", "x", "C")) == "discussion"


# A head over two-dimensional vectors: the first dimension says "asks for a decision", the
# second "asks about the log".
HEAD = IntentHead(
    {"decision": -2.0, "log": -2.0, "discussion": -5.0},
    {"decision": (6.0, 0.0), "log": (0.0, 6.0), "discussion": (0.0, 0.0)},
)
DECISION_QUESTION = (1.0, 0.0)
LOG_QUESTION = (0.0, 1.0)


def test_the_head_reads_what_each_question_asks_for() -> None:
    decision = HEAD.asked(DECISION_QUESTION)
    log = HEAD.asked(LOG_QUESTION)
    assert decision["decision"] == pytest.approx(1 / (1 + math.exp(-4.0)))
    assert decision["decision"] > 0.9 > 0.2 > decision["log"]
    assert log["log"] > 0.9 > 0.2 > log["decision"]
    assert set(decision) == {"decision", "log", "discussion"}


def test_a_vector_of_another_model_or_none_leaves_the_intent_unknown() -> None:
    assert HEAD.asked((1.0, 0.0, 0.0)) == {}
    assert HEAD.asked(None) == {}


@given(st.lists(st.floats(-10, 10), min_size=2, max_size=2))
def test_the_head_gives_probabilities(vector: list[float]) -> None:
    assert all(0.0 <= p <= 1.0 for p in HEAD.asked(vector).values())


def test_kind_features_weigh_a_kind_by_what_is_asked() -> None:
    decision = make_entry("d", "x", "A", type="decision")
    found = kind_features(decision, {"decision": 0.8, "log": 0.1}, cued=True)
    assert set(found) == set(KIND_FEATURES)
    assert found["decision"] == 1.0 and found["decision_asked"] == 0.8
    assert found["decision_cued"] == 1.0
    assert found["log"] == found["log_asked"] == found["discussion_asked"] == 0.0
    log = kind_features(make_entry("e", "x", "E"), {"decision": 0.8, "log": 0.1}, cued=True)
    assert log["log_asked"] == 0.1 and log["decision_cued"] == 0.0


def test_the_head_round_trips_through_its_file(tmp_path: Path) -> None:
    model = RankingModel({"keyword": 1.0}, 1.0, 0.0, "test", {"keyword": 2.0}, HEAD)
    path = tmp_path / "ranking.json"
    path.write_text(model.to_json(), encoding="utf-8")
    assert RankingModel.load(path) == model


def test_a_head_of_unknown_kinds_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ranking.json"
    path.write_text(
        '{"weights": {}, "scale": 1, "bias": 0, "intent": '
        '{"bias": {"gossip": 0}, "weights": {"gossip": [1, 2]}}}',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match="gossip"):
        RankingModel.load(path)


# A model that weighs only the kind against what is asked, and the keyword score.
MODEL = RankingModel(
    {"keyword": 2.0, "decision_asked": 4.0, "log_asked": 4.0},
    1.0,
    -3.0,
    list_weights={"keyword": 1.0},
    intent=HEAD,
)
TEXTS: dict[str, tuple[Tier, str | None, str]] = {
    "decision": ("A", "decision", "Billing uses Redis for the cache."),
    "log": ("E", None, "WARN billing: cache check took 812ms (redis)"),
    "talk": ("C", None, "should billing keep the redis cache?"),
}


def ranked(vector: tuple[float, ...], question: str = "billing cache") -> list[Candidate]:
    fusion = LearnedFusion(MODEL, ScoreFusion(0.7, bounded(4.0), lambda _: {}), lambda _: {})
    lists = {
        "bm25": [Hit("log", 4.0), Hit("talk", 3.0), Hit("decision", 2.0)],
        "vector": [Hit("decision", 0.5)],
    }
    found = Lists(question, "ns", lists, vector)
    candidates = []
    for hit in fusion.fuse(found, 5):
        tier, type_, text = TEXTS[hit.key]
        entry = make_entry(hit.key, text, tier, type=type_)
        candidates.append(
            Candidate(entry, text, hit.score, dict(hit.explain), hit.score, hit.features)
        )
    return fusion.settle(found, candidates, True)


def test_a_question_asking_for_a_decision_gets_the_decision_and_one_about_the_log_the_log() -> None:
    assert ranked(DECISION_QUESTION)[0].entry.id == "decision"
    assert ranked(LOG_QUESTION)[0].entry.id == "log"
    # Asking neither, the words decide: the log line matches best.
    assert ranked((0.0, 0.0))[0].entry.id == "log"


def test_the_kind_s_part_is_explained_as_intent() -> None:
    first = ranked(DECISION_QUESTION)[0]
    assert first.explain["intent"].score == pytest.approx(
        4.0 * HEAD.asked(DECISION_QUESTION)["decision"]
    )
    assert first.explain["model.decision_asked"].score == first.explain["intent"].score
    assert all("intent" not in c.explain for c in ranked((0.0, 0.0)) if c.entry.id == "talk")


def test_the_pool_is_ordered_by_the_list_weights() -> None:
    assert set(MODEL.pool_weights) <= set(LIST_FEATURES)
    assert RankingModel({"keyword": 1.0}, 1.0, 0.0).pool_weights == {"keyword": 1.0}


def test_a_search_of_one_list_keeps_its_score_moved_by_the_kind_s_part() -> None:
    """In ``bm25`` mode (or without the model) a question that names deciding still raises
    a decision over a better keyword match, by the model's weights for the kind."""
    model = RankingModel({"decision": 1.0, "decision_cued": 3.0}, 1.0, -3.0, intent=HEAD)
    # The kind's own weight (``decision``) is fitted beside the list features: it is shown
    # in ``intent`` but does not move a list's own score.
    fusion = LearnedFusion(model, ScoreFusion(0.7, bounded(4.0), lambda _: {}), lambda _: {})

    def ranked(question: str) -> list[Candidate]:
        found = Lists(question, "ns", {"bm25": [Hit("log", 3.0), Hit("decision", 2.0)]}, None)
        candidates = []
        for hit in fusion.fuse(found, 5):
            tier, type_, text = TEXTS[hit.key]
            entry = make_entry(hit.key, text, tier, type=type_)
            candidates.append(Candidate(entry, text, hit.score, dict(hit.explain), hit.score))
        return fusion.settle(found, candidates, True)

    worded = ranked("what did we decide about the billing cache?")
    assert [c.entry.id for c in worded] == ["decision", "log"]
    assert worded[0].explain["intent"].score == 3.0
    assert worded[0].score == pytest.approx(with_log_odds(0.5, 3.0))
    assert worded[0].relevance == 0.5  # the list's own score, unweighed
    plain = ranked("billing cache")
    assert [c.entry.id for c in plain] == ["log", "decision"]
    assert plain[1].score == 0.5


@given(st.floats(0.0, 1.0), st.floats(-20.0, 20.0), st.floats(0.0, 1.0))
def test_moving_the_log_odds_keeps_a_probability_and_the_order(
    p: float, shift: float, q: float
) -> None:
    moved = with_log_odds(p, shift)
    assert 0.0 <= moved <= 1.0
    if p < q:
        assert moved <= with_log_odds(q, shift)
