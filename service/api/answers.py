"""The agent's answer path: retrieve, context, feedback, the daily report and the routine check."""

from __future__ import annotations

from litestar import Controller, get, post
from litestar.params import JSONBody

from schemas import wire
from service.edge.deps import CallerDep
from service.edge.openapi import problems
from service.edge.params import Day, Namespace
from service.present.answers import daily_out, feedback_out, retrieve_out, routine_out
from service.present.context import context_out


class AnswersController(Controller):
    path = "/v1"
    tags = ["answers"]

    @post("/retrieve", status_code=200, sync_to_thread=True)
    def retrieve(
        self, data: JSONBody[wire.RetrieveRequest], caller: CallerDep
    ) -> wire.RetrieveResponse:
        """The best grounded entries for a question, whether a near-direct answer exists
        (``strong_match``) and the reasoning patterns that apply. Never writes knowledge;
        the call is logged as an interaction."""
        return retrieve_out(caller.services.answers.retrieve(caller.principal, data))

    @post("/context", status_code=200, sync_to_thread=True)
    def context(
        self, data: JSONBody[wire.ContextRequest], caller: CallerDep
    ) -> wire.ContextResponse:
        """The entries a retrieve ranks first, as one cited block of at most ``max_tokens``
        tokens of the embedding model (superseded entries left out, near-repeats folded,
        long entries cut around their best passage). Never writes knowledge; the call is
        logged as an interaction."""
        return context_out(caller.services.context.context(caller.principal, data))

    @post("/feedback", status_code=201, sync_to_thread=True, responses=problems(404))
    def feedback(
        self, data: JSONBody[wire.FeedbackRequest], caller: CallerDep
    ) -> wire.FeedbackResponse:
        """Rate the answer of a retrieve."""
        return feedback_out(caller.services.answers.feedback(caller.principal, data))

    @get("/reports/daily", sync_to_thread=True)
    def daily(
        self, caller: CallerDep, day: Day = None, namespace: Namespace = None
    ) -> wire.DailyReportResponse:
        """Questions asked on a day (UTC; default today), the strong-match rate, feedback
        counts and the questions with no strong match."""
        return daily_out(
            caller.services.answers.daily_report(
                caller.principal, day.isoformat() if day else None, namespace
            )
        )

    @post("/routine-check", status_code=200, sync_to_thread=True)
    def routine_check(
        self, data: JSONBody[wire.RoutineCheckRequest], caller: CallerDep
    ) -> wire.RoutineCheckResponse:
        """How many similar tier E executions exist, and whether the task is routine."""
        return routine_out(caller.services.answers.routine_check(caller.principal, data))
