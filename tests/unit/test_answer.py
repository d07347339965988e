"""The answer path over fake stores: blending, strong match, patterns, logging, routines."""

from __future__ import annotations

import math

import pytest

from service.domain.answers.answer import NO_ROUTINE_CHECK, Answerer
from service.domain.answers.interactions import daily_report
from service.domain.answers.policy import AnswerPolicy
from service.domain.model import Feedback, Filters
from service.domain.model.references import Reference
from service.domain.search.searcher import Searcher
from tests.fakes import (
    T0,
    FakeInteractionLog,
    FakeStores,
    fake_memory,
    make_entry,
)
from tests.settings import answer_settings, search_settings

DAY = 86_400


class Ids:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"i{self.n}"


def answerer(
    *,
    threshold: float = 0.6,
    embedder: bool = True,
    floor: float = 0.01,
    stores: FakeStores | None = None,
    **settings: object,
) -> Answerer:
    """An answerer over ``stores`` (new fakes when None), which it fills with a decision, a
    discussion, a log and a pattern about billing's database."""
    stores = stores or fake_memory()
    model = stores.embedder
    stores.memory.writer.write(
        [
            make_entry("pg", "we decided on postgres for billing", "A", type="decision"),
            make_entry("chat", "postgres or mongo for billing?", "C", expires_at=T0 + DAY),
            make_entry("log", "postgres billing migration ran", "E"),
            make_entry(
                "how",
                "pick a billing datastore by its transactions",
                "A",
                kind="pattern",
                variants=("payments need postgres",),
            ),
        ]
    )
    searcher = Searcher(
        stores.ledger,
        stores.vectors,
        stores.keywords,
        model if embedder else None,
        search_settings(min_score=floor),
    )
    return Answerer(
        searcher,
        model if embedder else None,
        FakeInteractionLog(),
        answer_settings(strong_match_threshold=threshold, **settings),
        new_id=Ids(),
        references=stores.ledger,
    )


def referenced(service: Answerer, question: str, *answers: str, at: float = T0) -> str:
    """Record a reference question of namespace ``ns``; its id."""
    assert service.references is not None
    n = service.references.count_references("ns") + 1
    service.references.add_references(
        [Reference("ns", f"r{n}", question, answers, "admin", "alice", at)]
    )
    return f"r{n}"


def test_policy_blends_the_four_parts_with_their_weights() -> None:
    weights = {"relevance": 0.9, "type": 0.0, "confidence": 0.05, "freshness": 0.05}
    policy = AnswerPolicy.of(
        answer_settings(weights=weights, type_weights={"decision": 1.0}, freshness_days=10)
    )
    entry = make_entry("x", "t", "A", type="decision", confidence=0.8)
    parts = policy.parts(entry, 0.5, T0 + 10 * DAY)
    assert parts == pytest.approx(
        {"relevance": 0.5, "type": 1.0, "confidence": 0.8, "freshness": math.exp(-1)}
    )
    expected = 0.9 * 0.5 + 0.0 * 1.0 + 0.05 * 0.8 + 0.05 * math.exp(-1)
    assert policy.score(parts) == pytest.approx(expected)


def test_by_default_a_recent_entry_does_not_pass_a_more_relevant_old_one() -> None:
    # In a weak pool relevances are a few hundredths: a lift for recency would decide there.
    policy = AnswerPolicy.of(answer_settings())
    old = policy.parts(make_entry("decision", "t", "A", timestamp=T0), 0.03, T0 + 900 * DAY)
    new = make_entry("talk", "t", "C", timestamp=T0 + 899 * DAY)
    recent = policy.parts(new, 0.01, T0 + 900 * DAY)
    assert recent["freshness"] > 0.9 > old["freshness"]
    assert policy.score(old) > policy.score(recent)


def test_unknown_type_and_missing_confidence_count_half() -> None:
    parts = AnswerPolicy.of(answer_settings()).parts(
        make_entry("x", "t", "A", type="rumour"), 1.0, T0
    )
    assert (parts["type"], parts["confidence"]) == (0.5, 0.5)


def test_retrieve_keeps_patterns_apart_and_gives_every_entry_a_relevance() -> None:
    found = answerer().retrieve("postgres billing", "ns", T0 + 1, top_n=5, asker="bot")
    ids = [a.result.entry.id for a in found.entries]
    assert set(ids) == {"pg", "chat", "log"}
    assert [a.result.entry.id for a in found.patterns] == ["how"]
    assert found.patterns[0].result.entry.variants == ("payments need postgres",)
    assert all(0.0 <= a.relevance <= 1.0 for a in found.entries)
    scores = [a.score for a in found.entries]
    assert scores == sorted(scores, reverse=True)
    assert found.best_relevance == max(a.relevance for a in found.entries)


def test_by_relevance_the_entries_are_the_most_relevant_given_best_blend_first() -> None:
    # A blend of the type alone, which puts the decision last.
    service = answerer(
        weights={"relevance": 0.0, "type": 1.0, "confidence": 0.0, "freshness": 0.0},
        type_weights={"decision": 0.0},
    )
    question = "we decided on postgres for billing"
    every = service.retrieve(question, "ns", T0 + 1, top_n=5, by_relevance=True)
    relevant = sorted(every.entries, key=lambda a: -a.result.score)
    assert relevant[0].result.entry.id == "pg"
    assert [a.result.entry.id for a in every.entries][-1] == "pg"
    assert service.retrieve(question, "ns", T0 + 1, top_n=1).entries[0].result.entry.id != "pg"
    two = service.retrieve(question, "ns", T0 + 1, top_n=2, by_relevance=True).entries
    assert {a.result.entry.id for a in two} == {a.result.entry.id for a in relevant[:2]}
    assert [a.result.entry.id for a in two][-1] == "pg", "given best blend first"


def test_strong_match_follows_the_threshold() -> None:
    assert answerer(threshold=0.0).retrieve("postgres billing", "ns", T0 + 1).strong_match
    assert not answerer(threshold=1.0).retrieve("postgres billing", "ns", T0 + 1).strong_match


def test_nothing_found_is_no_strong_match() -> None:
    found = answerer(threshold=0.0).retrieve("postgres", "other-namespace", T0 + 1)
    assert found.entries == [] and found.strong_match is False


def test_entries_below_the_relevance_floor_are_no_answer() -> None:
    everything = answerer(threshold=0.0, floor=0.0).retrieve("postgres billing", "ns", T0 + 1)
    best = max(a.result.score for a in everything.entries)
    service = answerer(threshold=0.0, floor=best + 0.001)
    found = service.retrieve("postgres billing", "ns", T0 + 1)
    assert found.entries == []
    assert [a.result.entry.id for a in found.patterns] == ["how"], "patterns have no floor"
    assert (found.strong_match, found.confidence, found.best_relevance) == (False, 0.0, 0.0)
    logged = service.log.get(found.interaction_id)
    assert logged is not None and logged.results == [] and logged.strong_match is False
    kept = answerer(threshold=0.0, floor=best).retrieve("postgres billing", "ns", T0 + 1)
    assert [a.result.score for a in kept.entries] == [best]


def test_every_retrieve_is_logged_with_its_results() -> None:
    service = answerer()
    found = service.retrieve("postgres billing", "ns", T0 + 1, top_n=2, asker="bot")
    logged = service.log.get(found.interaction_id)
    assert logged is not None
    assert (logged.question, logged.asker, logged.namespace) == ("postgres billing", "bot", "ns")
    assert [r.id for r in logged.results] == [a.result.entry.id for a in found.entries]
    assert logged.strong_match == found.strong_match


def test_daily_report_counts_questions_matches_and_feedback() -> None:
    service = answerer(threshold=0.99)
    first = service.retrieve("postgres billing", "ns", T0 + 1)
    service.retrieve("kubernetes", "ns", T0 + 2)
    service.log.add_feedback(Feedback(first.interaction_id, T0 + 3, "down", None, "bot"))
    asked, given = service.log.between("ns", T0, T0 + DAY)
    report = daily_report("ns", T0, asked, given)
    assert report.questions == 2
    assert report.feedback == {"up": 0, "down": 1}
    assert report.strong_matches + len(report.unanswered) == 2


def test_routine_check_counts_similar_tier_e_executions() -> None:
    service = answerer()
    check = service.routine_check("postgres billing migration ran", "ns", T0 + 1)
    assert check.similar == 1
    assert check.is_routine is False
    assert [r.entry.id for r, _ in check.examples] == ["log"]
    service.routine_min_similar = 1
    assert service.routine_check("postgres billing migration ran", "ns", T0 + 1).is_routine


def test_routine_check_without_a_model_says_so() -> None:
    check = answerer(embedder=False).routine_check("postgres billing", "ns", T0 + 1)
    assert check.is_routine is False
    assert NO_ROUTINE_CHECK in check.degraded


def test_a_question_a_reference_answers_gives_its_answers_first_as_a_strong_match() -> None:
    service = answerer(threshold=0.99)
    asked = "What did we decide for billing?"
    before = service.retrieve(asked, "ns", T0 + 1, top_n=1)
    assert not before.strong_match and before.reference is None
    assert before.entries[0].result.entry.id != "log"
    ref = referenced(service, "what did we decide for BILLING", "log")
    after = service.retrieve(asked, "ns", T0 + 1, top_n=1)
    assert [a.result.entry.id for a in after.entries] == ["log"]
    assert (after.strong_match, after.confidence, after.reference) == (True, 1.0, ref)
    assert after.best_relevance == after.entries[0].relevance
    logged = service.log.get(after.interaction_id)
    assert logged is not None and logged.strong_match and [r.id for r in logged.results] == ["log"]
    two = service.retrieve(asked, "ns", T0 + 1, top_n=2)
    assert two.entries[0].result.entry.id == "log" and len(two.entries) == 2


def test_a_question_nothing_answers_is_no_strong_match_until_memory_changes() -> None:
    stores = fake_memory()
    service = answerer(threshold=0.0, stores=stores)
    asked = "postgres billing?"
    assert service.retrieve(asked, "ns", T0 + 1).strong_match
    ref = referenced(service, asked, at=T0 + 1)
    locked = service.retrieve(asked, "ns", T0 + 2)
    assert locked.entries, "the entries are still given, judged answering nothing"
    assert (locked.strong_match, locked.confidence, locked.reference) == (False, 0.0, ref)
    # An entry written since the team judged may answer it: the calibration judges again.
    stores.memory.writer.write([make_entry("new", "postgres billing settled", timestamp=T0 + 5)])
    later = service.retrieve(asked, "ns", T0 + 6)
    assert "new" in {a.result.entry.id for a in later.entries}
    assert later.strong_match and later.reference is None


def test_a_reference_whose_answers_the_search_cannot_find_leaves_the_calibration_to_judge() -> None:
    service = answerer(threshold=0.0)
    referenced(service, "postgres billing", "log")
    within = Filters("ns", ("A",), T0 + 1)
    found = service.retrieve("postgres billing", "ns", T0 + 1, within=within)
    assert "log" not in {a.result.entry.id for a in found.entries}
    assert found.reference is None and found.strong_match
    referenced(service, "mongo", "gone")
    assert service.retrieve("mongo", "ns", T0 + 1).reference is None


def test_a_sweep_asks_a_reference_without_its_verdict() -> None:
    service = answerer(threshold=0.99)
    referenced(service, "postgres billing", "log")
    _, answers = service.at_floors("postgres billing", "ns", T0 + 1, [0.0])
    assert answers[0].reference is None and not answers[0].strong_match
