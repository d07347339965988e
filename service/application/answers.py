"""The agent's answer path: retrieve, feedback, the daily report and the routine check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime

from schemas import wire
from service.application.auth import Principal
from service.application.chains import Chain, ChainSource, chains
from service.application.inputs import moment, not_blank
from service.domain.answer import Answer, Answerer, RoutineCheck
from service.domain.interactions import DailyReport, Feedback, daily_report
from service.domain.ports import InteractionLog
from service.errors import InvalidInput, NotFound

DAY = 86_400


@dataclass(frozen=True)
class Retrieved:
    answer: Answer
    now: float
    threshold: float
    degraded: list[str]
    text_chars: int
    """Most characters of an entry's text an answer carries."""
    chains: dict[str, Chain] = field(default_factory=dict)
    """By entry key: what the entries of the answer replaced."""


@dataclass(frozen=True)
class RoutineReport:
    check: RoutineCheck
    similarity_threshold: float
    min_similar: int
    degraded: list[str]


class AnswerUseCases:
    def __init__(
        self,
        answerer: Answerer,
        interactions: InteractionLog,
        degraded: list[str],
        *,
        text_chars: int,
        clock: Callable[[], float],
        ledger: ChainSource | None = None,
    ) -> None:
        """``ledger``: where the answers' supersessions are read; None: not shown."""
        self.ledger = ledger
        self.answerer = answerer
        self.text_chars = text_chars
        self.interactions = interactions
        self.degraded = degraded
        self.clock = clock

    def retrieve(self, principal: Principal, request: wire.RetrieveRequest) -> Retrieved:
        """The best grounded entries for a question, whether a near-direct answer exists
        and the reasoning patterns that apply; logged as an interaction."""
        question = not_blank(request.question, "question")
        as_of = moment(request.as_of, "as_of")
        namespace = principal.namespace(request.namespace)
        now = self.clock()
        answer = self.answerer.retrieve(
            question,
            namespace,
            now,
            top_n=request.top_n,
            asker=request.asker,
            as_of=as_of,
            include_superseded=request.include_superseded,
        )
        degraded = [*self.degraded, *answer.degraded]
        keys = [a.result.entry.key for a in answer.entries]
        found = chains(self.ledger, keys) if self.ledger is not None else {}
        return Retrieved(
            answer, now, self.answerer.policy.threshold, degraded, self.text_chars, found
        )

    def feedback(self, principal: Principal, request: wire.FeedbackRequest) -> Feedback:
        """Rate the answer of a retrieve the caller may see."""
        interaction = self.interactions.get(request.interaction_id)
        # Another namespace's interaction is as unknown as one that never was.
        if interaction is None or not principal.may_use(interaction.namespace):
            raise NotFound(f"no interaction {request.interaction_id!r}")
        given = Feedback(
            interaction.id, self.clock(), request.rating, request.comment, principal.name
        )
        self.interactions.add_feedback(given)
        return given

    def daily_report(
        self, principal: Principal, day: str | None, namespace: str | None
    ) -> DailyReport:
        """Questions asked on a day (UTC; default today), the strong-match rate, feedback
        counts and the questions with no strong match."""
        ns = principal.namespace(namespace)
        start = day_start(day, self.clock())
        asked, given = self.interactions.between(ns, start, start + DAY)
        report = daily_report(ns, start, asked, given)
        if self.ledger is not None:
            report = replace(
                report, revisions=self.ledger.superseded_between(ns, start, start + DAY)
            )
        return report

    def routine_check(
        self, principal: Principal, request: wire.RoutineCheckRequest
    ) -> RoutineReport:
        """How many similar tier E executions exist, and whether the task is routine."""
        task = not_blank(request.task, "task")
        check = self.answerer.routine_check(
            task, principal.namespace(request.namespace), self.clock()
        )
        return RoutineReport(
            check,
            self.answerer.routine_similarity,
            self.answerer.routine_min_similar,
            [*self.degraded, *check.degraded],
        )


def day_start(day: str | None, now: float) -> float:
    """Epoch seconds of 00:00 UTC of ``day`` (``YYYY-MM-DD``), else of today."""
    if day is None:
        today = datetime.fromtimestamp(now, UTC)
        return today.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
    try:
        parsed = date.fromisoformat(day)
    except ValueError:
        raise InvalidInput.one("date", f"not a date as YYYY-MM-DD: {day!r}") from None
    return datetime(parsed.year, parsed.month, parsed.day, tzinfo=UTC).timestamp()
