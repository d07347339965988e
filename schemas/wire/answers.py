"""Answers and what is learned from them: ``/v1/retrieve``, ``/v1/feedback``,
``/v1/reports/daily`` and ``/v1/routine-check``."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct, field

from schemas.vocabulary import Rating
from schemas.wire.calibrations import CalibrationChange
from schemas.wire.events import EntryOut, Replacement
from schemas.wire.fields import Id, Label, Namespace, Question, Score, Timestamp
from schemas.wire.references import MOST_ANSWERS
from schemas.wire.search import CalibrationUsed, Source, UpstreamAsked, UpstreamRef


class RetrieveRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    question: Question
    asker: Label | None = None
    """Who asks (an agent's name); kept in the interaction log."""
    top_n: Annotated[int, Meta(ge=1, le=50)] = 5
    namespace: Namespace | None = None
    include_superseded: bool = False
    """Answer from superseded entries too, marked with ``superseded_by``."""
    as_of: Timestamp | None = None
    """Answer from memory as it held at this moment."""


class AnswerParts(Struct):
    relevance: float
    """The retrieval score: BM25 and vector fusion, or the reranker's blend when reranked."""
    type: float
    confidence: float
    freshness: float


class RetrievedEntry(EntryOut, kw_only=True, omit_defaults=True):
    """An entry of an answer: how relevant it is and its final blended score."""

    snippet: str
    relevance_score: Score
    """Raw similarity of the best stage: the cross-encoder's score when reranked, else the
    cosine of question and best chunk."""
    score: Score
    """The parts (retrieval relevance, type, confidence, freshness) blended with
    STRATA_ANSWER_WEIGHTS; entries come best first by it."""
    parts: AnswerParts
    file: str | None = None
    title: str | None = None
    lines: str | None = None
    truncated: bool = False
    """``text`` is cut at STRATA_MAX_HIT_CHARS; the entry itself has it whole."""
    source: Source = "local"
    """``upstream``: returned by the upstream, listed after the local entries; never part
    of ``strong_match`` or ``answer_confidence``."""
    upstream: UpstreamRef | None = None
    supersedes: list[Replacement] = field(default_factory=list)
    """The entries this one replaced, oldest first, with their text."""


class RetrieveResponse(Struct):
    interaction_id: str
    """Quote it in ``POST /v1/feedback``."""
    entries: list[RetrievedEntry]
    strong_match: bool
    """``answer_confidence`` is at or above ``threshold``: a near-direct answer exists."""
    answer_confidence: float
    """The calibrated probability, in [0, 1], that a relevant entry is among ``entries``."""
    best_relevance: float
    """The highest relevance among ``entries``."""
    threshold: float
    """The namespace's fitted threshold (``calibration``), else STRATA_STRONG_MATCH_THRESHOLD,
    else the shipped calibration's."""
    reasoning_patterns: list[RetrievedEntry]
    took_ms: float
    degraded: list[str]
    upstream: UpstreamAsked | None = None
    """Set when the upstream was asked: the retrieve found nothing here (or, with
    STRATA_UPSTREAM_ON_WEAK, no strong match)."""
    calibration: CalibrationUsed | None = None
    """Which calibration judged ``strong_match`` and set the floor."""
    reference_id: str | None = None
    """The namespace's reference question of the same words (``/v1/references``) whose
    verdict this is: the entries it names first, a strong match of confidence 1; or, as
    nothing answers it, no strong match, confidence 0. None: the calibration's verdict."""


class FeedbackRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    interaction_id: Annotated[str, Meta(min_length=1, max_length=128)]
    rating: Rating
    comment: Annotated[str, Meta(max_length=10_000)] | None = None
    answers: Annotated[list[Id], Meta(max_length=MOST_ANSWERS)] | None = None
    """The entries that answered (``up``) or should have (``down``): the question becomes a
    reference question of the namespace (``/v1/references``)."""
    nothing: bool = False
    """With ``down``: nothing in memory answers the question; it becomes a reference
    question whose right answer is none."""


class FeedbackResponse(Struct):
    interaction_id: str
    rating: Rating
    recorded_at: str
    reference_id: str | None = None
    """The reference question the feedback recorded, when it named answers or nothing."""


class UnansweredQuestion(Struct):
    interaction_id: str
    question: str
    asker: str | None
    at: str
    best_relevance: float
    answer_confidence: float | None = None
    """None for a question asked before answers carried a confidence."""


class DailyReportResponse(Struct, kw_only=True):
    date: str
    namespace: str
    questions: int
    strong_matches: int
    strong_match_rate: float | None
    """Null when no question was asked that day."""
    feedback: dict[str, int]
    """Ratings given on that day's interactions: ``up`` and ``down``."""
    unanswered: list[UnansweredQuestion]
    """The questions with no strong match, in the order asked (the first 500)."""
    unanswered_total: int = 0
    """How many questions had no strong match (``unanswered`` lists at most 500)."""
    revisions: list[Revision] = field(default_factory=list)
    """Entries superseded that day, in the order it happened (the first 500)."""
    references: dict[str, int] = field(default_factory=dict)
    """Reference questions recorded that day, by how: ``feedback``, ``agent``, ``admin``,
    ``console``."""
    references_total: int = 0
    """The namespace's reference questions by the end of that day (those kept still)."""
    calibrations: list[CalibrationChange] = field(default_factory=list)
    """The fits sweeps kept that day, oldest first, each with the calibration it replaced
    and both judged on the references the sweep's folds left out."""


class Revision(Struct):
    """An entry replaced by another."""

    id: str
    """The entry replaced."""
    superseded_by: str
    at: str
    actor: str


class RoutineCheckRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    task: Question
    namespace: Namespace | None = None


class SimilarExecution(Struct):
    id: str
    text: str
    timestamp: str
    similarity: float


class RoutineCheckResponse(Struct, kw_only=True):
    similar: int
    """Tier E executions at or above ``similarity_threshold`` (of the 100 best by BM25)."""
    is_routine: bool
    """At least ``min_similar`` similar executions exist."""
    similarity_threshold: float
    min_similar: int
    examples: list[SimilarExecution]
    degraded: list[str]
