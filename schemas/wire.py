"""The wire contract: request and response bodies of the REST API.

JSON Schema files generated from these types live in ``schemas/json``; a test fails
when they drift (regenerate with ``make schemas``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct, field

Tier = Literal["A", "C", "E"]
Mode = Literal["auto", "bm25", "vector", "hybrid"]

Id = Annotated[str, Meta(pattern=r"^[A-Za-z0-9_.:@-]{1,128}$", description="Entry id")]
Namespace = Annotated[
    str, Meta(pattern=r"^[A-Za-z0-9_.-]{1,64}$", description="Isolated space of entries")
]
Label = Annotated[str, Meta(min_length=1, max_length=200)]
Text = Annotated[str, Meta(min_length=1, max_length=1_000_000)]
Timestamp = Annotated[str, Meta(description="ISO 8601; without an offset it is UTC")]
Scalar = str | int | float | bool | None


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
    metadata: dict[str, Scalar] = field(default_factory=dict)


class EventsRequest(Struct, forbid_unknown_fields=True):
    events: Annotated[list[Event], Meta(min_length=1)]


class EventsResponse(Struct):
    ids: list[str]
    embedded: int
    indexed: int


class SearchRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    query: Annotated[str, Meta(min_length=1, max_length=10_000)]
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
    explain: bool = False
    rerank: bool | None = None
    """Rerank the top candidates with the cross-encoder; default: STRATA_RERANK."""


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


class SearchHit(EntryOut, kw_only=True, omit_defaults=True):
    """An entry found by a search, with the part of it that matched."""

    snippet: str
    score: Annotated[float, Meta(ge=0, le=1)]
    explain: dict[str, ListRank] | None = None
    file: str | None = None
    """For a chunk of a collection's file: ``<collection>/<relative path>``."""
    title: str | None = None
    lines: str | None = None
    """Line range of the chunk in its file, as ``first-last``."""
    score_pct: int | None = None


CollectionName = Annotated[str, Meta(pattern=r"^[A-Za-z0-9_.-]{1,64}$")]


class CollectionRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    name: CollectionName
    path: Annotated[str, Meta(min_length=1, max_length=4096)]
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


class DocumentsRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    pattern: Annotated[str, Meta(min_length=1, max_length=10_000)]
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


class DeleteResponse(Struct):
    id: str
    namespace: str
    deleted: bool


class Health(Struct):
    status: Literal["ok", "degraded"]
    model: str | None
    reranker: str | None
    stores: dict[str, Any]
    degraded: list[str]


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


class JobOut(Struct, kw_only=True):
    name: str
    schedule: str
    next_run: str | None
    last_started: str | None
    last_finished: str | None
    last_result: dict[str, Any] | None
    last_error: str | None
    runs: int


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


class NamespaceStats(Struct):
    namespace: str
    tiers: dict[str, TierStats]


class Totals(Struct, kw_only=True):
    entries: int
    vectors: int
    tokens_embedded: int
    tokens_full_rag: int
    """Tokens embedding every entry, of every tier, would have cost."""
    embedding_avoided: float
    """Share of the full-RAG embedding work not done: 1 - embedded / full."""


class StatsResponse(Struct):
    namespaces: list[NamespaceStats]
    totals: Totals
    disk_bytes: dict[str, int | None]


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
    return msgspec.json.schema(kind)
