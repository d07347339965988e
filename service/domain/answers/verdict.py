"""What a retrieve answers: its entries and its verdict (``strong_match`` and the confidence),
and that verdict as a namespace's reference question of the same words gives it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from service.domain.answers.confidence import Evidence
from service.domain.answers.tuning import Tuning
from service.domain.model.references import Reference
from service.domain.search.query import SearchResult


@dataclass(frozen=True)
class Answered:
    """One entry of an answer."""

    result: SearchResult
    relevance: float
    score: float
    parts: Mapping[str, float]


@dataclass(frozen=True)
class Answer:
    interaction_id: str
    entries: list[Answered]
    patterns: list[Answered]
    strong_match: bool
    """``confidence`` reaches the policy's threshold (or ``reference`` says so)."""
    confidence: float
    """The calibrated probability that a relevant entry is among ``entries`` (1 or 0 as
    ``reference`` says)."""
    evidence: Evidence
    best_relevance: float
    took_ms: float
    degraded: list[str]
    tuning: Tuning
    """The threshold and floor it was given, and whose fit they are."""
    reference: str | None = None
    """The id of the namespace's reference question of the same words whose verdict
    ``strong_match`` and ``confidence`` are; None: the calibration's."""


def as_referenced(
    answer: Answer,
    reference: Reference,
    found: Sequence[SearchResult],
    top_n: int,
    answered: Callable[[Sequence[SearchResult]], list[Answered]],
) -> Answer:
    """``answer`` as ``reference``, of the same words as its question, says. One naming its
    answers: those the search found (``found``, best first) come first, a strong match of
    confidence 1. One that nothing answers: no strong match, confidence 0, unless an entry
    dated after the reference is among the entries (memory changed since the team judged).
    Unchanged when the search found none of the entries it names (removed, superseded or
    outside the request's conditions since). ``answered``: the answer's entries of results
    it does not hold."""
    if not reference.answerable:
        if any(a.result.entry.timestamp > reference.at for a in answer.entries):
            return answer
        return replace(answer, strong_match=False, confidence=0.0, reference=reference.id)
    names = set(reference.answers)
    named = [r for r in found if r.entry.id in names]
    if not named:
        return answer
    given = {a.result.entry.key: a for a in answer.entries}
    unseen = [r for r in named if r.entry.key not in given]
    added = {a.result.entry.key: a for a in answered(unseen)}
    first = [given.get(r.entry.key) or added[r.entry.key] for r in named]
    rest = [a for a in answer.entries if a.result.entry.id not in names]
    entries = [*first, *rest][:top_n]
    return replace(
        answer,
        entries=entries,
        strong_match=True,
        confidence=1.0,
        best_relevance=round(max(a.relevance for a in entries), 6),
        reference=reference.id,
    )
