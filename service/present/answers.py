"""Retrieves, feedback, daily reports and routine checks as the wire types of
``schemas.wire.answers``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from schemas import wire
from service.application.answers import Rated, Retrieved, RoutineReport
from service.application.chains import Chain
from service.domain.answers.interactions import DailyReport
from service.domain.answers.verdict import Answered
from service.domain.recall import Recalled
from service.lib.fields import fields_of
from service.present.calibrations import fit_out
from service.present.events import entry_fields, file_fields, replacement_out
from service.present.search import asked_out, calibration_out, upstream_ref
from service.present.times import format_time

UNANSWERED_SHOWN = 500
"""Most unanswered questions a daily report lists."""


def retrieve_out(retrieved: Retrieved) -> wire.RetrieveResponse:
    answer, now = retrieved.answer, retrieved.now
    return wire.RetrieveResponse(
        interaction_id=answer.interaction_id,
        entries=[
            *(
                retrieved_out(
                    a, now, retrieved.text_chars, retrieved.chains.get(a.result.entry.key)
                )
                for a in answer.entries
            ),
            *(
                retrieved_out(a, now, retrieved.text_chars, upstream=hit)
                for a, hit in retrieved.recalled
            ),
        ],
        strong_match=answer.strong_match,
        answer_confidence=answer.confidence,
        best_relevance=answer.best_relevance,
        threshold=retrieved.threshold,
        reasoning_patterns=[retrieved_out(a, now, retrieved.text_chars) for a in answer.patterns],
        took_ms=answer.took_ms,
        degraded=retrieved.degraded,
        upstream=asked_out(retrieved.recall),
        calibration=calibration_out(answer.tuning),
        reference_id=answer.reference,
    )


def retrieved_out(
    answered: Answered,
    now: float,
    text_chars: int,
    chain: Chain | None = None,
    *,
    upstream: Recalled | None = None,
) -> wire.RetrievedEntry:
    """An entry of an answer; ``chain``: what it replaced; ``upstream``: the upstream's hit
    it stands for."""
    parts = {name: round(value, 6) for name, value in answered.parts.items()}
    marks: dict[str, Any] = {}
    if upstream is not None:
        marks = {"source": "upstream", "upstream": upstream_ref(upstream)}
    replaced = chain.supersedes if chain is not None else []
    return wire.RetrievedEntry(
        supersedes=[replacement_out(link, text=True) for link in replaced],
        **({} if upstream is not None else file_fields(answered.result.entry)),
        **entry_fields(answered.result.entry, now, text_chars),
        snippet=answered.result.snippet,
        relevance_score=answered.relevance,
        score=answered.score,
        parts=wire.AnswerParts(**parts),
        **marks,
    )


def feedback_out(rated: Rated) -> wire.FeedbackResponse:
    feedback, reference = rated.feedback, rated.reference
    return wire.FeedbackResponse(
        feedback.interaction_id,
        feedback.rating,
        format_time(feedback.at) or "",
        reference.id if reference is not None else None,
    )


def daily_out(report: DailyReport) -> wire.DailyReportResponse:
    return wire.DailyReportResponse(
        date=datetime.fromtimestamp(report.start, UTC).date().isoformat(),
        **fields_of(report, "namespace", "questions", "strong_matches", "strong_match_rate"),
        feedback=report.feedback,
        unanswered=[
            wire.UnansweredQuestion(
                i.id,
                i.question,
                i.asker,
                format_time(i.at) or "",
                i.best_relevance,
                i.answer_confidence,
            )
            for i in report.unanswered[:UNANSWERED_SHOWN]
        ],
        unanswered_total=len(report.unanswered),
        revisions=[
            wire.Revision(
                id=key.split(":", 1)[1],
                superseded_by=event.detail or "",
                at=format_time(event.at) or "",
                actor=event.actor,
            )
            for key, event in report.revisions
        ],
        references=report.references,
        references_total=report.references_total,
        calibrations=[
            wire.CalibrationChange(
                fit=fit_out(c.fit, report.in_force), replaced=calibration_out(c.replaced)
            )
            for c in report.calibrations
        ],
    )


def routine_out(report: RoutineReport) -> wire.RoutineCheckResponse:
    check = report.check
    return wire.RoutineCheckResponse(
        similar=check.similar,
        is_routine=check.is_routine,
        similarity_threshold=report.similarity_threshold,
        min_similar=report.min_similar,
        examples=[
            wire.SimilarExecution(
                r.entry.id, r.entry.text, format_time(r.entry.timestamp) or "", similarity
            )
            for r, similarity in check.examples
        ],
        degraded=report.degraded,
    )
