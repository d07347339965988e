"""The agent's answer path: retrieve, feedback, the daily report and the routine check."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field, replace
from datetime import UTC, date, datetime
from functools import partial

from schemas import wire
from service.application.auth import Principal
from service.application.chains import Chain, ChainSource, chains
from service.application.inputs import moment, not_blank
from service.application.recall import Recall, RecallUseCases
from service.application.references import ReferenceUseCases
from service.domain.answers.answer import Answerer, RoutineCheck
from service.domain.answers.interactions import DailyReport, daily_report
from service.domain.answers.tuning import changes_between
from service.domain.answers.verdict import Answer, Answered
from service.domain.model import Feedback
from service.domain.model.references import Reference
from service.domain.ports import InteractionLog
from service.domain.recall import Recalled
from service.domain.search.query import SearchResult
from service.errors import FieldError, InvalidInput, NotFound
from service.telemetry import NONE, Telemetry

DAY = 86_400


@dataclass(frozen=True)
class Retrieved:
    answer: Answer
    now: float
    threshold: float
    degraded: list[str]
    text_chars: int
    """Most characters of an entry's text an answer carries."""
    recall: Recall | None = None
    """What the upstream returned, when it was asked."""
    recalled: list[tuple[Answered, Recalled]] = field(default_factory=list)
    """The upstream's entries, scored as local ones are, listed after them."""
    chains: dict[str, Chain] = field(default_factory=dict)
    """By entry key: what the entries of the answer replaced."""


@dataclass(frozen=True)
class Rated:
    feedback: Feedback
    reference: Reference | None
    """The reference question the feedback made, when it named answers or nothing."""


@dataclass(frozen=True)
class RoutineReport:
    check: RoutineCheck
    similarity_threshold: float
    min_similar: int
    degraded: list[str]


@dataclass(eq=False)
class AnswerUseCases:
    answerer: Answerer
    interactions: InteractionLog
    degraded: list[str]
    _: KW_ONLY
    text_chars: int
    clock: Callable[[], float]
    telemetry: Telemetry = NONE
    recall: RecallUseCases | None = None
    """The upstream asked when a retrieve finds nothing (and, with ``recall_when_weak``,
    when it finds no strong match); None: none."""
    recall_when_weak: bool = False
    ledger: ChainSource | None = None
    """Where the answers' supersessions are read; None: not shown."""
    references: ReferenceUseCases | None = None
    """Where feedback naming answers records its reference question; None: nowhere."""

    def retrieve(
        self, principal: Principal, request: wire.RetrieveRequest, *, record: bool = True
    ) -> Retrieved:
        """The best grounded entries for a question, whether a near-direct answer exists
        and the reasoning patterns that apply; logged as an interaction and counted in the
        metrics unless ``record`` is False (a preview, which writes nothing)."""
        question = not_blank(request.question, "question")
        as_of = moment(request.as_of, "as_of")
        namespace = principal.namespace(request.namespace)
        now = self.clock()
        retrieve = partial(
            self.answerer.retrieve,
            question,
            namespace,
            now,
            top_n=request.top_n,
            asker=request.asker,
            as_of=as_of,
            include_superseded=request.include_superseded,
            record=record,
        )
        answer = traced_retrieve(self.telemetry, question, namespace, retrieve, record=record)
        recall, recalled = None, []
        weak = self.recall_when_weak and not answer.strong_match
        if self.recall is not None and as_of is None and (not answer.entries or weak):
            recall = self.recall.ask(principal, namespace, question, request.top_n)
            recalled = [(self._answered(hit, now), hit) for hit in recall.hits] if recall else []
        degraded = [*self.degraded, *answer.degraded, *(recall.degraded if recall else [])]
        keys = [a.result.entry.key for a in answer.entries]
        found = chains(self.ledger, keys) if self.ledger is not None else {}
        return Retrieved(
            answer,
            now,
            answer.tuning.threshold,
            degraded,
            self.text_chars,
            recall,
            recalled,
            found,
        )

    def _answered(self, hit: Recalled, now: float) -> Answered:
        """An upstream entry scored as a local one is, its relevance the upstream's score."""
        policy = self.answerer.policy
        parts = policy.parts(hit.entry, hit.score, now)
        result = SearchResult(hit.entry, hit.snippet, hit.score, relevance=hit.score)
        return Answered(result, round(hit.score, 6), round(policy.score(parts), 6), parts)

    def feedback(self, principal: Principal, request: wire.FeedbackRequest) -> Rated:
        """Rate the answer of a retrieve the caller may see; with ``answers`` or
        ``nothing``, its question becomes a reference question of the namespace."""
        interaction = self.interactions.get(request.interaction_id)
        # Another namespace's interaction is as unknown as one that never was.
        if interaction is None or not principal.may_use(interaction.namespace):
            raise NotFound(f"no interaction {request.interaction_id!r}")
        reference = None
        if request.answers or request.nothing:
            if request.nothing and request.rating == "up":
                raise InvalidInput(
                    [FieldError("nothing", "goes with a thumbs-down: an answer was found")]
                )
            if self.references is not None:
                answers = request.answers or []
                reference = self.references.of_feedback(
                    principal, interaction, answers, request.nothing
                )
        given = Feedback(
            interaction.id, self.clock(), request.rating, request.comment, principal.name
        )
        self.interactions.add_feedback(given)
        if reference is not None and self.references is not None:
            self.references.keep(reference)
        return Rated(given, reference)

    def daily_report(
        self, principal: Principal, day: str | None, namespace: str | None, *, whole: bool = True
    ) -> DailyReport:
        """Questions asked on a day (UTC; default today), the strong-match rate, feedback
        counts, the questions with no strong match, the entries superseded, the reference
        questions recorded and the fits sweeps kept; not ``whole``: the questions, matches
        and feedback alone."""
        ns = principal.namespace(namespace)
        start = day_start(day, self.clock())
        end = start + DAY
        asked, given = self.interactions.between(ns, start, end)
        report = daily_report(ns, start, asked, given)
        if not whole:  # the questions alone, as a chart of days shows them
            return report
        if self.ledger is not None:
            report = replace(report, revisions=self.ledger.superseded_between(ns, start, end))
        if self.references is not None:
            by_source, total = self.references.recorded(ns, start, end)
            report = replace(report, references=by_source, references_total=total)
        tunings = self.answerer.tunings
        if tunings.fits is not None:
            fits = tunings.fits.fits(ns)
            report = replace(
                report, calibrations=changes_between(fits, start, end, tunings.shipped)
            )
        return replace(report, in_force=tunings.of(ns))

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


def traced_retrieve(
    telemetry: Telemetry,
    question: str,
    namespace: str,
    retrieve: Callable[[], Answer],
    *,
    record: bool = True,
    confidence: bool = True,
) -> Answer:
    """``retrieve``'s answer to ``question``, in a ``search_memory`` span of ``namespace``
    that lists the entries (and, with ``confidence``, the answer's confidence); timed in the
    metrics unless ``record`` is False."""
    tracing, metrics = telemetry.tracing, telemetry.metrics
    started = time.perf_counter()
    with tracing.memory("search_memory", namespace, query=question) as span:
        answer = retrieve()
        if span is not None:
            span.set_attribute("strata.strong_match", answer.strong_match)
            if confidence:
                span.set_attribute("strata.answer_confidence", answer.confidence)
            records = [
                {"id": a.result.entry.id, "content": a.result.entry.text, "score": a.score}
                for a in answer.entries
            ]
            tracing.records(span, records)
    if metrics is not None and record:
        metrics.retrieved_answer(answer.strong_match, time.perf_counter() - started)
    return answer


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
