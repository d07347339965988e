"""The wire contract: request and response bodies of the REST API, one module per resource.

Every type is importable from here (``wire.SearchRequest``). JSON Schema files generated
from the types of ``CONTRACT`` live in ``schemas/json``; a test fails when they drift
(regenerate with ``make schemas``). A type's ``RULES``, rules between its fields, are added
to its schema.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Struct

from schemas.vocabulary import (
    EMBEDDED_TIERS,
    ID_PATTERN,
    NAMESPACE_PATTERN,
    Kind,
    Mode,
    Rating,
    Tier,
)
from schemas.wire.admin import (
    JobOut,
    JobRunOut,
    JobsResponse,
    PromoteRequest,
    PromoteResponse,
    QuarantinedEntry,
    QuarantineResponse,
    RebuildOut,
)
from schemas.wire.answers import (
    AnswerParts,
    DailyReportResponse,
    FeedbackRequest,
    FeedbackResponse,
    RetrievedEntry,
    RetrieveRequest,
    RetrieveResponse,
    Revision,
    RoutineCheckRequest,
    RoutineCheckResponse,
    SimilarExecution,
    UnansweredQuestion,
)
from schemas.wire.collections import (
    DOCUMENTS,
    CollectionName,
    CollectionOut,
    CollectionRequest,
    CollectionsResponse,
    DocumentOut,
    DocumentsRequest,
    DocumentsResponse,
    RenameRequest,
    ScanOut,
    ScanProgress,
    Skipped,
)
from schemas.wire.events import (
    DeleteResponse,
    EntryDetail,
    EntryOut,
    Event,
    EventsRequest,
    EventsResponse,
    HistoryItem,
    HistoryResponse,
    Replacement,
    SimilarEntry,
    WrittenEntry,
)
from schemas.wire.fields import (
    METADATA_VALUE_CHARS,
    NOT_BLANK,
    SPACE,
    Id,
    Label,
    Metadata,
    MetadataKey,
    Namespace,
    Question,
    Scalar,
    Score,
    Text,
    Timestamp,
    Variant,
)
from schemas.wire.problems import FieldProblem, Problem
from schemas.wire.search import LeftOut, ListRank, SearchHit, SearchRequest, SearchResponse
from schemas.wire.status import (
    EngineHealth,
    Health,
    ModelWork,
    NamespaceStats,
    ReadTimeWork,
    ReplicaHealth,
    StatsResponse,
    TierStats,
    Totals,
)

__all__ = [
    "CONTRACT",
    "DOCUMENTS",
    "EMBEDDED_TIERS",
    "ID_PATTERN",
    "METADATA_VALUE_CHARS",
    "NAMESPACE_PATTERN",
    "NOT_BLANK",
    "SPACE",
    "AnswerParts",
    "CollectionName",
    "CollectionOut",
    "CollectionRequest",
    "CollectionsResponse",
    "DailyReportResponse",
    "DeleteResponse",
    "DocumentOut",
    "DocumentsRequest",
    "DocumentsResponse",
    "EngineHealth",
    "EntryDetail",
    "EntryOut",
    "Event",
    "EventsRequest",
    "EventsResponse",
    "FeedbackRequest",
    "FeedbackResponse",
    "FieldProblem",
    "Health",
    "HistoryItem",
    "HistoryResponse",
    "Id",
    "JobOut",
    "JobRunOut",
    "JobsResponse",
    "Kind",
    "Label",
    "LeftOut",
    "ListRank",
    "Metadata",
    "MetadataKey",
    "Mode",
    "ModelWork",
    "Namespace",
    "NamespaceStats",
    "Problem",
    "PromoteRequest",
    "PromoteResponse",
    "QuarantineResponse",
    "QuarantinedEntry",
    "Question",
    "Rating",
    "ReadTimeWork",
    "RebuildOut",
    "RenameRequest",
    "Replacement",
    "ReplicaHealth",
    "RetrieveRequest",
    "RetrieveResponse",
    "RetrievedEntry",
    "Revision",
    "RoutineCheckRequest",
    "RoutineCheckResponse",
    "Scalar",
    "ScanOut",
    "ScanProgress",
    "Score",
    "SearchHit",
    "SearchRequest",
    "SearchResponse",
    "SimilarEntry",
    "SimilarExecution",
    "Skipped",
    "StatsResponse",
    "Text",
    "Tier",
    "TierStats",
    "Timestamp",
    "Totals",
    "UnansweredQuestion",
    "Variant",
    "WrittenEntry",
    "json_schema",
    "schema_components",
]

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
    "EntryDetail": EntryDetail,
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
    """Add to each schema named after a wire type that type's ``RULES``."""
    for name, schema in schemas.items():
        schema.update(getattr(globals().get(name), "RULES", {}))
