"""The agent's answer path: retrieve, feedback, the daily report and the routine check."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Annotated

from litestar import Controller, get, post
from litestar.params import FromQuery, JSONBody, QueryParameter

from schemas import wire
from service.api.convert import format_time, retrieved_out
from service.api.deps import PrincipalDep, ResourcesDep
from service.auth import Principal
from service.domain.interactions import Feedback, daily_report
from service.errors import InvalidInput, NotFound
from service.resources import Resources


class AnswersController(Controller):
    path = "/v1"
    tags = ["answers"]

    @post("/retrieve", status_code=200, sync_to_thread=True)
    def retrieve(
        self, data: JSONBody[wire.RetrieveRequest], resources: ResourcesDep, principal: PrincipalDep
    ) -> wire.RetrieveResponse:
        """The best grounded entries for a question, whether a near-direct answer exists
        (``strong_match``) and the reasoning patterns that apply. Never writes knowledge;
        the call is logged as an interaction."""
        return retrieve(resources, principal, data)

    @post("/feedback", status_code=201, sync_to_thread=True)
    def feedback(
        self, data: JSONBody[wire.FeedbackRequest], resources: ResourcesDep, principal: PrincipalDep
    ) -> wire.FeedbackResponse:
        """Rate the answer of a retrieve."""
        interaction = resources.interactions.get(data.interaction_id)
        # Another namespace's interaction is as unknown as one that never was.
        if interaction is None or not principal.may_use(interaction.namespace):
            raise NotFound(f"no interaction {data.interaction_id!r}")
        now = resources.clock()
        resources.interactions.add_feedback(
            Feedback(interaction.id, now, data.rating, data.comment, principal.name)
        )
        return wire.FeedbackResponse(interaction.id, data.rating, format_time(now) or "")

    @get("/reports/daily", sync_to_thread=True)
    def daily(
        self,
        resources: ResourcesDep,
        principal: PrincipalDep,
        day: Annotated[str | None, QueryParameter(name="date")] = None,
        namespace: FromQuery[str | None] = None,
    ) -> wire.DailyReportResponse:
        """Questions asked on a day (UTC; default today), the strong-match rate, feedback
        counts and the questions with no strong match."""
        ns = principal.namespace(namespace)
        start = _day_start(day, resources.clock())
        asked, given = resources.interactions.between(ns, start, start + 86_400)
        report = daily_report(ns, start, asked, given)
        return wire.DailyReportResponse(
            date=datetime.fromtimestamp(start, UTC).date().isoformat(),
            namespace=ns,
            questions=report.questions,
            strong_matches=report.strong_matches,
            strong_match_rate=report.strong_match_rate,
            feedback=report.feedback,
            unanswered=[
                wire.UnansweredQuestion(
                    i.id, i.question, i.asker, format_time(i.at) or "", i.best_relevance
                )
                for i in report.unanswered
            ],
        )

    @post("/routine-check", status_code=200, sync_to_thread=True)
    def routine_check(
        self,
        data: JSONBody[wire.RoutineCheckRequest],
        resources: ResourcesDep,
        principal: PrincipalDep,
    ) -> wire.RoutineCheckResponse:
        """How many similar tier E executions exist, and whether the task is routine."""
        if not data.task.strip():
            raise InvalidInput.one("task", "must not be blank")
        answerer = resources.answerer
        check = answerer.routine_check(
            data.task, principal.namespace(data.namespace), resources.clock()
        )
        return wire.RoutineCheckResponse(
            similar=check.similar,
            is_routine=check.is_routine,
            similarity_threshold=answerer.routine_similarity,
            min_similar=answerer.routine_min_similar,
            examples=[
                wire.SimilarExecution(
                    r.entry.id, r.entry.text, format_time(r.entry.timestamp) or "", similarity
                )
                for r, similarity in check.examples
            ],
            degraded=[*resources.degraded, *check.degraded],
        )


def retrieve(
    resources: Resources, principal: Principal, request: wire.RetrieveRequest
) -> wire.RetrieveResponse:
    """A retrieve for ``principal``, as the REST endpoint and the MCP tool answer it."""
    if not request.question.strip():
        raise InvalidInput.one("question", "must not be blank")
    now = resources.clock()
    answer = resources.answerer.retrieve(
        request.question,
        principal.namespace(request.namespace),
        now,
        top_n=request.top_n,
        asker=request.asker,
    )
    return wire.RetrieveResponse(
        interaction_id=answer.interaction_id,
        entries=[retrieved_out(a, now) for a in answer.entries],
        strong_match=answer.strong_match,
        best_relevance=answer.best_relevance,
        threshold=resources.answerer.policy.threshold,
        reasoning_patterns=[retrieved_out(a, now) for a in answer.patterns],
        took_ms=answer.took_ms,
        degraded=[*resources.degraded, *answer.degraded],
    )


def _day_start(day: str | None, now: float) -> float:
    """Epoch seconds of 00:00 UTC of ``day`` (``YYYY-MM-DD``), else of today."""
    if day is None:
        return (
            datetime.fromtimestamp(now, UTC)
            .replace(hour=0, minute=0, second=0, microsecond=0)
            .timestamp()
        )
    try:
        parsed = date.fromisoformat(day)
    except ValueError:
        raise InvalidInput.one("date", f"not a date as YYYY-MM-DD: {day!r}") from None
    return datetime(parsed.year, parsed.month, parsed.day, tzinfo=UTC).timestamp()


__all__ = ["AnswersController"]
