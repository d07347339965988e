"""The daily report of a namespace's interactions: the retrieves logged (``Interaction``) and
the feedback given on them (``Feedback``), one day at a time."""

from __future__ import annotations

from dataclasses import dataclass, field

from service.domain.answers.tuning import Change, Tuning
from service.domain.entries import HistoryEvent
from service.domain.model import Feedback, Interaction


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
    references: dict[str, int] = field(default_factory=dict)
    """Reference questions recorded that day, by source."""
    references_total: int = 0
    """The namespace's reference questions by the end of that day (those kept still)."""
    calibrations: list[Change] = field(default_factory=list)
    """The fits sweeps kept that day, oldest first."""
    in_force: Tuning | None = None
    """The calibration in force now (None: not known here)."""

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
