"""What a question asks for: decisions, read from its words, and how a decision's score is
raised for one."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.hydration import Candidate
from service.domain.intent import asks_for_decision, is_decision, with_odds
from service.domain.ranking import Weighting, weigh
from tests.fakes import T0, make_entry
from tests.unit.test_ranking import candidate, ids


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


def test_a_decision_is_an_entry_recorded_as_one() -> None:
    assert is_decision(make_entry("d", "x", "C", type="decision"))
    assert is_decision(make_entry("a", "x", "A", type="decision"))
    assert not is_decision(make_entry("a", "x", "A"))  # durable facts are tier A too
    assert not is_decision(make_entry("f", "x", "A", type="fact"))
    assert not is_decision(make_entry("e", "x", "E"))
    assert not is_decision(make_entry("c", "x", "C"))


@given(
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(1.0, 1000.0),
)
def test_raised_odds_stay_a_probability_and_keep_the_order(p: float, q: float, odds: float) -> None:
    raised, other = with_odds(p, odds), with_odds(q, odds)
    assert 0.0 <= raised <= 1.0
    assert raised >= p - 1e-12
    if p < q:
        assert raised <= other


def test_odds_are_multiplied() -> None:
    raised = with_odds(0.2, 30.0)
    assert raised / (1 - raised) == pytest.approx(30 * 0.2 / 0.8)
    assert with_odds(0.5, 1.0) == pytest.approx(0.5)


def test_a_question_about_decisions_lifts_them_above_better_matches() -> None:
    def ranked(question: str) -> list[str]:
        candidates = [
            candidate("log", 0.5, "E"),
            candidate("talk", 0.4, "C"),
            candidate("decision", 0.1, "A", type="decision"),
        ]
        return ids(weigh(candidates, Weighting({}, 0, decision_odds=30.0), T0, question))

    assert ranked("what did we decide about the cache?") == ["decision", "log", "talk"]
    assert ranked("which cache does billing use?") == ["log", "talk", "decision"]


def test_the_lift_is_explained_and_off_at_odds_one() -> None:
    def decision() -> list[Candidate]:
        return [candidate("d", 0.1, "A", type="decision")]

    lifted = weigh(decision(), Weighting({}, 0, decision_odds=30.0), T0, "decision?")
    assert lifted[0].explain["intent"].score == pytest.approx(with_odds(0.1, 30.0) / 0.1)
    untouched = weigh(decision(), Weighting({}, 0), T0, "decision?")
    assert "intent" not in untouched[0].explain
    assert untouched[0].score == 0.1
