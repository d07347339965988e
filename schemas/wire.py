"""The wire contract: request and response bodies of the REST API.

JSON Schema files generated from these types live in ``schemas/json``; a test fails
when they drift (regenerate with ``make schemas``).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import msgspec
from msgspec import Meta, Struct, field

from service.domain.interactions import Rating as Rating
from service.domain.models import EMBEDDED_TIERS, ID_PATTERN, NAMESPACE_PATTERN
from service.domain.models import Kind as Kind
from service.domain.models import Mode as Mode
from service.domain.models import Tier as Tier

# Rules the use cases check themselves, with messages of their own, are stated in the JSON
# Schema through ``extra_json_schema`` (msgspec states them but does not enforce them), and
# rules between fields through a type's ``RULES``: a request the schema allows is never
# refused for a rule it does not state.
SPACE = r"\t-\r\x1c- \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""The characters ``str.strip`` removes, as a regex class (JSON Schema regexes differ)."""
NOT_BLANK = {"pattern": f"[^{SPACE}]"}
METADATA_VALUE_CHARS = 10_000

Id = Annotated[str, Meta(pattern=ID_PATTERN, description="Entry id")]
Namespace = Annotated[str, Meta(pattern=NAMESPACE_PATTERN, description="Isolated space of entries")]
Label = Annotated[str, Meta(min_length=1, max_length=200)]
Text = Annotated[str, Meta(min_length=1, max_length=1_000_000, extra_json_schema=NOT_BLANK)]
Question = Annotated[str, Meta(min_length=1, max_length=10_000, extra_json_schema=NOT_BLANK)]
Timestamp = Annotated[
    str,
    Meta(
        description="ISO 8601 (as RFC 3339 date-time); without an offset it is UTC",
        extra_json_schema={"format": "date-time"},
    ),
]
MetadataKey = Annotated[str, Meta(min_length=1, max_length=200)]
Scalar = Annotated[str, Meta(max_length=METADATA_VALUE_CHARS)] | int | float | bool | None
Metadata = Annotated[dict[MetadataKey, Scalar], Meta(max_length=64)]
Score = Annotated[float, Meta(ge=0, le=1)]
Variant = Annotated[str, Meta(min_length=1, max_length=10_000)]


class Event(Struct, forbid_unknown_fields=True, kw_only=True):
    """Something an agent wants remembered."""

    text: Text
    tier: Tier
    id: Id | None = None
    namespace: Namespace | None = None
    speaker: Label | None = None
    role: Label | None = None
    chain_type: Label | None = None
    tags: Annotated[list[Label], Meta(max_length=64)] = field(default_factory=list)
    timestamp: Timestamp | None = None
    ttl_days: Annotated[float, Meta(gt=0, le=36_500)] | None = None
    metadata: Metadata = field(default_factory=dict)
    kind: Kind = "memory"
    """``pattern``: a reasoning pattern, given back with its variants by ``/v1/retrieve``."""
    type: Label | None = None
    """What the entry is: decision, framework, position, reaction, fact, ...; weighs in
    ``/v1/retrieve``'s score (STRATA_TYPE_WEIGHTS)."""
    confidence: Score | None = None
    """How sure the author was, in [0, 1]."""
    variants: Annotated[list[Variant], Meta(max_length=64)] = field(default_factory=list)
    """A pattern's variants for different situations."""
    thread: Label | None = None
    """The conversation, session or task the event is part of. Each event of a thread is
    indexed for BM25 with the one written before it (a reply is found by what it answers)."""

    RULES: ClassVar[dict[str, Any]] = {
        "allOf": [
            {  # only tier C entries expire
                "anyOf": [
                    {"properties": {"tier": {"const": "C"}}},
                    {"properties": {"ttl_days": {"type": "null"}}},
                ]
            },
            {  # only patterns have variants
                "anyOf": [
                    {"properties": {"kind": {"const": "pattern"}}, "required": ["kind"]},
                    {"properties": {"variants": {"maxItems": 0}}},
                ]
            },
        ]
    }


class EventsRequest(Struct, forbid_unknown_fields=True):
    events: Annotated[list[Event], Meta(min_length=1)]


class EventsResponse(Struct):
    ids: list[str]
    embedded: int
    indexed: int


class SearchRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    query: Question
    namespace: Namespace | None = None
    tiers: Annotated[list[Tier], Meta(min_length=1)] | None = None
    mode: Mode = "auto"
    limit: Annotated[int, Meta(ge=1, le=100)] = 10
    speaker: Label | None = None
    chain_type: Label | None = None
    tags: list[Label] = field(default_factory=list)
    since: Timestamp | None = None
    until: Timestamp | None = None
    include_archived: bool = False
    kind: Kind | None = None
    min_score: Score = 0.0
    """Drop results scoring below this."""
    relax: bool = True
    """When nothing is found, retry once over every tier with no min_score."""
    explain: bool = False
    rerank: bool | None = None
    """Rerank the top candidates with the cross-encoder; default: STRATA_RERANK."""

    RULES: ClassVar[dict[str, Any]] = {
        "anyOf": [  # a vector search needs a tier that has vectors
            {"properties": {"mode": {"enum": ["auto", "bm25", "hybrid"]}}},
            {
                "properties": {
                    "tiers": {
                        "anyOf": [{"type": "null"}, {"contains": {"enum": list(EMBEDDED_TIERS)}}]
                    }
                }
            },
        ]
    }


class ListRank(Struct):
    rank: int
    score: float


class EntryOut(Struct, kw_only=True):
    id: str
    namespace: str
    tier: Tier
    text: str
    timestamp: str
    speaker: str | None
    role: str | None
    chain_type: str | None
    tags: list[str]
    expires_at: str | None
    archived: bool
    metadata: dict[str, Any]
    kind: Kind
    type: str | None
    confidence: float | None
    variants: list[str]
    thread: str | None


class SearchHit(EntryOut, kw_only=True, omit_defaults=True):
    """An entry found by a search, with the part of it that matched."""

    snippet: str
    score: Score
    explain: dict[str, ListRank] | None = None
    file: str | None = None
    """For a chunk of a collection's file: ``<collection>/<relative path>``."""
    title: str | None = None
    lines: str | None = None
    """Line range of the chunk in its file, as ``first-last``."""
    score_pct: int | None = None
    truncated: bool = False
    """``text`` is cut at STRATA_MAX_HIT_CHARS; the entry itself has it whole."""


CollectionName = Annotated[str, Meta(pattern=NAMESPACE_PATTERN)]


class CollectionRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    name: CollectionName
    path: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=4096,
            description="A directory on the server, absolute or under ~",
            extra_json_schema={"pattern": "^(/|~/|~$)"},
        ),
    ]
    mask: Annotated[str, Meta(min_length=1, max_length=200)] = "**/*.md"
    namespace: Namespace | None = None
    tier: Tier = "A"


class RenameRequest(Struct, forbid_unknown_fields=True):
    name: CollectionName


class CollectionOut(Struct, kw_only=True):
    name: str
    namespace: str
    path: str
    mask: str
    tier: Tier
    files: int
    created_at: str
    scanned_at: str | None
    scanning: ScanProgress | None = None
    """While a scan runs: files done so far and files in all."""


class ScanProgress(Struct):
    done: int
    total: int


class CollectionsResponse(Struct):
    collections: list[CollectionOut]


class ScanOut(Struct, kw_only=True):
    collection: CollectionOut
    added: int
    changed: int
    removed: int
    unchanged: int
    chunks: int
    skipped: list[str]


class DocumentOut(Struct, kw_only=True):
    path: str
    title: str
    first_line: int
    last_line: int
    total_lines: int
    text: str
    """The requested lines, each prefixed with its number."""


_S = f"[{SPACE}]*"
_DOCUMENT = rf"(strata://)?[A-Za-z0-9_.-]{{1,64}}/{_S}[^,{SPACE}][^,]*"
DOCUMENTS = rf"^([^,]*[*?\[][^,]*|{_S}({_DOCUMENT})?{_S}(,{_S}({_DOCUMENT})?{_S})*)$"
"""A glob (no comma), or a list of ``<collection>/<relative path>``, blanks allowed."""


class DocumentsRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    pattern: Annotated[
        str, Meta(min_length=1, max_length=10_000, extra_json_schema={"pattern": DOCUMENTS})
    ]
    """A glob over document paths (``notes/**/*.md``) or a comma-separated list of paths."""
    max_bytes: Annotated[int, Meta(ge=1, le=10_000_000)] = 65536


class Skipped(Struct):
    path: str
    reason: str


class DocumentsResponse(Struct):
    documents: list[DocumentOut]
    skipped: list[Skipped]


class SearchResponse(Struct):
    results: list[SearchHit]
    mode: Mode
    took_ms: float
    degraded: list[str]
    relaxed: bool = False
    """The filtered search found nothing; these results come from the relaxed retry."""


class RetrieveRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    question: Question
    asker: Label | None = None
    """Who asks (an agent's name); kept in the interaction log."""
    top_n: Annotated[int, Meta(ge=1, le=50)] = 5
    namespace: Namespace | None = None


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
    """``STRATA_STRONG_MATCH_THRESHOLD``, or the calibration's recommended threshold."""
    reasoning_patterns: list[RetrievedEntry]
    took_ms: float
    degraded: list[str]


class FeedbackRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    interaction_id: Annotated[str, Meta(min_length=1, max_length=128)]
    rating: Rating
    comment: Annotated[str, Meta(max_length=10_000)] | None = None


class FeedbackResponse(Struct):
    interaction_id: str
    rating: Rating
    recorded_at: str


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


class DeleteResponse(Struct):
    id: str
    namespace: str
    deleted: bool


class ReplicaHealth(Struct, kw_only=True):
    """This process among the replicas sharing its ledger."""

    name: str
    """STRATA_REPLICA_NAME, else ``<hostname>:<port>``."""
    mode: Literal["embedded", "cluster"]
    """``embedded``: SQLite files of its own; ``cluster``: a database shared by replicas."""
    leads_jobs: bool
    """Whether it runs the scheduled jobs for every replica."""
    lag_seconds: float
    """Since the oldest change of the ledger its keyword index has not applied; 0 when
    caught up (always in embedded mode, where every change is applied as it is made)."""
    changes_behind: int
    """Changes of the ledger its keyword index has not applied (at most)."""


class Health(Struct):
    status: Literal["ok", "degraded"]
    model: str | None
    reranker: str | None
    stores: dict[str, Any]
    degraded: list[str]
    model_backend: str | None = None
    """What runs the embedding model: onnx, onnx-int8 or torch."""
    replica: ReplicaHealth | None = None


class HistoryItem(Struct):
    at: str
    action: str
    """created, updated, embedded, promoted, archived, restored or deleted."""
    actor: str


class HistoryResponse(Struct):
    id: str
    namespace: str
    history: list[HistoryItem]


class PromoteRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    ids: Annotated[list[Id], Meta(min_length=1, max_length=1000)]
    namespace: Namespace | None = None


class PromoteResponse(Struct):
    namespace: str
    promoted: list[str]


class JobRunOut(Struct, kw_only=True):
    """One run of a job, on whichever replica ran it."""

    replica: str
    started_at: str
    finished_at: str | None
    """Null while it runs."""
    slot: str | None
    """The scheduled turn it ran for; null for a run by hand or a job run per replica."""
    error: str | None


class JobOut(Struct, kw_only=True):
    name: str
    schedule: str
    next_run: str | None
    last_started: str | None
    last_finished: str | None
    last_result: dict[str, Any] | None
    last_error: str | None
    runs: int
    """Runs recorded, on every replica (counted up to 1000)."""
    last_replica: str | None = None
    """The replica that ran it last."""
    per_replica: bool = False
    """Whether every replica runs it on its own index rather than one replica for all."""
    recent: list[JobRunOut] = []
    """The last runs, newest first (at most 5)."""


class QuarantinedEntry(Struct):
    namespace: str
    id: str
    reason: str
    """Why it could not be indexed."""
    at: str


class QuarantineResponse(Struct):
    """Entries kept in the ledger but set aside, out of every read, because they could not
    be indexed; writing an entry again (same id) or deleting it takes it out."""

    entries: list[QuarantinedEntry]


class JobsResponse(Struct):
    jobs: list[JobOut]


class RebuildOut(Struct, kw_only=True):
    state: Literal["idle", "running", "done", "failed"]
    done: int
    total: int
    started_at: str | None
    finished_at: str | None
    error: str | None


class TierStats(Struct, kw_only=True):
    active: int = 0
    archived: int = 0
    vectors: int = 0
    tokens_embedded: int = 0
    tokens: int = 0


class ModelWork(Struct, kw_only=True):
    """Model calls, the texts they embedded and those texts' model tokens."""

    calls: int = 0
    texts: int = 0
    tokens: int = 0


class NamespaceStats(Struct):
    namespace: str
    tiers: dict[str, TierStats]
    read_time: ModelWork = field(default_factory=ModelWork)
    """Passages of this namespace's entries without a stored vector (tier E, archived tier
    C) embedded by reads since the process started."""


class Totals(Struct, kw_only=True):
    entries: int
    vectors: int
    tokens_embedded: int
    tokens_full_rag: int
    """Tokens embedding every entry, of every tier, would have cost."""
    embedding_avoided: float
    """Share of the full-RAG embedding work not done:
    1 - (tokens_embedded + tokens_read_time) / tokens_full_rag."""
    quarantined: int = 0
    """Entries set aside because they could not be indexed (``/v1/admin/quarantine``)."""
    tokens_read_time: int = 0
    """Tokens of passages embedded by reads since the process started."""


class ReadTimeWork(Struct, kw_only=True):
    """Model work of reads (searches, retrieves, routine checks) since the process
    started, in this process only."""

    since: str
    """When the process started counting."""
    queries: ModelWork | None = None
    """Queries embedded (a query vector reused from the cache costs nothing); null for a
    key limited to namespaces, as queries are not counted per namespace."""
    passages: ModelWork = field(default_factory=ModelWork)
    """Passages embedded to measure their cosine with a query, in the namespaces shown."""


class StatsResponse(Struct):
    namespaces: list[NamespaceStats]
    totals: Totals
    disk_bytes: dict[str, int | None]
    read_time: ReadTimeWork | None = None
    """Null when the process does not count the model work of reads."""


class FieldProblem(Struct):
    field: str
    message: str


class Problem(Struct, omit_defaults=True):
    """RFC 9457 problem details."""

    type: str
    title: str
    status: int
    detail: str
    errors: list[FieldProblem] = field(default_factory=list)


CONTRACT: dict[str, type[Struct]] = {
    "Event": Event,
    "EventsRequest": EventsRequest,
    "EventsResponse": EventsResponse,
    "SearchRequest": SearchRequest,
    "SearchResponse": SearchResponse,
    "RetrieveRequest": RetrieveRequest,
    "RetrieveResponse": RetrieveResponse,
    "FeedbackRequest": FeedbackRequest,
    "FeedbackResponse": FeedbackResponse,
    "DailyReportResponse": DailyReportResponse,
    "RoutineCheckRequest": RoutineCheckRequest,
    "RoutineCheckResponse": RoutineCheckResponse,
    "EntryOut": EntryOut,
    "DeleteResponse": DeleteResponse,
    "Health": Health,
    "HistoryResponse": HistoryResponse,
    "PromoteRequest": PromoteRequest,
    "PromoteResponse": PromoteResponse,
    "JobsResponse": JobsResponse,
    "RebuildOut": RebuildOut,
    "StatsResponse": StatsResponse,
    "CollectionRequest": CollectionRequest,
    "CollectionsResponse": CollectionsResponse,
    "ScanOut": ScanOut,
    "DocumentOut": DocumentOut,
    "DocumentsRequest": DocumentsRequest,
    "DocumentsResponse": DocumentsResponse,
    "Problem": Problem,
}


def json_schema(kind: type[Struct]) -> dict[str, Any]:
    schema = msgspec.json.schema(kind)
    _add_rules(schema.get("$defs", {}))
    return schema


def schema_components(kinds: list[type[Struct]], ref_template: str) -> dict[str, Any]:
    """The JSON Schema of ``kinds`` and of the types they use, by name."""
    _, components = msgspec.json.schema_components(kinds, ref_template=ref_template)
    _add_rules(components)
    return components


def _add_rules(schemas: dict[str, Any]) -> None:
    for name, schema in schemas.items():
        schema.update(getattr(globals().get(name), "RULES", {}))
