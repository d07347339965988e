"""Interactions: every retrieve as logged, the feedback on it, and the daily report."""

from __future__ import annotations

from dataclasses import dataclass, field

from schemas.vocabulary import Rating as Rating
from service.domain.entries import HistoryEvent


@dataclass(frozen=True)
class InteractionResult:
    id: str
    relevance: float
    score: float


@dataclass(frozen=True)
class Interaction:
    id: str
    at: float
    namespace: str
    asker: str | None
    question: str
    results: list[InteractionResult]
    strong_match: bool
    best_relevance: float
    took_ms: float
    answer_confidence: float | None = None
    """None for a retrieve logged before answers carried a confidence."""


@dataclass(frozen=True)
class Feedback:
    interaction_id: str
    at: float
    rating: Rating
    comment: str | None
    actor: str


@dataclass(frozen=True)
class DailyReport:
    namespace: str
    start: float
    questions: int
    strong_matches: int
    feedback: dict[str, int]
    unanswered: list[Interaction]
    """The questions with no strong match, in the order asked."""
    revisions: list[tuple[str, HistoryEvent]] = field(default_factory=list)
    """The entries superseded that day: each key with its ``superseded`` event."""

    @property
    def strong_match_rate(self) -> float | None:
        return self.strong_matches / self.questions if self.questions else None


def daily_report(
    namespace: str, start: float, asked: list[Interaction], feedback: list[Feedback]
) -> DailyReport:
    """The report of one day (``asked`` and ``feedback`` are that day's, in order)."""
    counts = {"up": 0, "down": 0}
    for item in feedback:
        counts[item.rating] += 1
    return DailyReport(
        namespace=namespace,
        start=start,
        questions=len(asked),
        strong_matches=sum(1 for i in asked if i.strong_match),
        feedback=counts,
        unanswered=[i for i in asked if not i.strong_match],
    )
