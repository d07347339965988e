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
    EntryOut,
    Event,
    EventsRequest,
    EventsResponse,
    HistoryItem,
    HistoryResponse,
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
from schemas.wire.portable import (
    FORMAT,
    FORMAT_VERSION,
    ChunkLine,
    CollectionLine,
    End,
    EntryLine,
    ErasureCounts,
    ErasureResponse,
    ErasuresResponse,
    ExportCounts,
    ExportLine,
    ExportSettings,
    FeedbackLine,
    FileLine,
    Header,
    HistoryLine,
    Imported,
    ImportResponse,
    InteractionLine,
    ResultLine,
    SkippedLine,
)
from schemas.wire.problems import FieldProblem, Problem
from schemas.wire.search import (
    ListRank,
    SearchHit,
    SearchRequest,
    SearchResponse,
    Source,
    UpstreamAsked,
    UpstreamRef,
)
from schemas.wire.status import (
    BreakerHealth,
    EngineHealth,
    Health,
    ModelWork,
    NamespaceStats,
    ReadTimeWork,
    ReplicaHealth,
    StatsResponse,
    TierStats,
    Totals,
    UpstreamHealth,
)

__all__ = [
    "CONTRACT",
    "DOCUMENTS",
    "EMBEDDED_TIERS",
    "FORMAT",
    "FORMAT_VERSION",
    "ID_PATTERN",
    "METADATA_VALUE_CHARS",
    "NAMESPACE_PATTERN",
    "NOT_BLANK",
    "SPACE",
    "AnswerParts",
    "BreakerHealth",
    "ChunkLine",
    "CollectionLine",
    "CollectionName",
    "CollectionOut",
    "CollectionRequest",
    "CollectionsResponse",
    "DailyReportResponse",
    "DeleteResponse",
    "DocumentOut",
    "DocumentsRequest",
    "DocumentsResponse",
    "End",
    "EngineHealth",
    "EntryLine",
    "EntryOut",
    "ErasureCounts",
    "ErasureResponse",
    "ErasuresResponse",
    "Event",
    "EventsRequest",
    "EventsResponse",
    "ExportCounts",
    "ExportLine",
    "ExportSettings",
    "FeedbackLine",
    "FeedbackRequest",
    "FeedbackResponse",
    "FieldProblem",
    "FileLine",
    "Header",
    "Health",
    "HistoryItem",
    "HistoryLine",
    "HistoryResponse",
    "Id",
    "ImportResponse",
    "Imported",
    "InteractionLine",
    "JobOut",
    "JobRunOut",
    "JobsResponse",
    "Kind",
    "Label",
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
    "ReplicaHealth",
    "ResultLine",
    "RetrieveRequest",
    "RetrieveResponse",
    "RetrievedEntry",
    "RoutineCheckRequest",
    "RoutineCheckResponse",
    "Scalar",
    "ScanOut",
    "ScanProgress",
    "Score",
    "SearchHit",
    "SearchRequest",
    "SearchResponse",
    "SimilarExecution",
    "Skipped",
    "SkippedLine",
    "Source",
    "StatsResponse",
    "Text",
    "Tier",
    "TierStats",
    "Timestamp",
    "Totals",
    "UnansweredQuestion",
    "UpstreamAsked",
    "UpstreamHealth",
    "UpstreamRef",
    "Variant",
    "json_schema",
    "schema_components",
]

CONTRACT: dict[str, Any] = {
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
    "ExportLine": ExportLine,
    "ImportResponse": ImportResponse,
    "ErasureResponse": ErasureResponse,
    "Problem": Problem,
}


def json_schema(kind: Any) -> dict[str, Any]:
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
