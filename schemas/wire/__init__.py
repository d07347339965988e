"""The wire contract: request and response bodies of the REST API, one module per resource.

Every type is importable from here (``wire.SearchRequest``). JSON Schema files generated
from the types of ``CONTRACT`` live in ``schemas/json``; a test fails when they drift
(regenerate with ``make schemas``). A type's ``RULES``, rules between its fields, are added
to its schema.
"""

from __future__ import annotations

from inspect import cleandoc
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
from schemas.wire.calibrations import (
    CalibrationChange,
    CalibrationsResponse,
    FitOut,
    FloorPoint,
    HeldOut,
    ReferenceOutcome,
    RollbackRequest,
    SweepRequest,
    SweepResponse,
    ThresholdPoint,
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
from schemas.wire.context import (
    MAX_TOKENS,
    MOST_ENTRIES,
    TOKEN_BOUNDS,
    ContextFormat,
    ContextItem,
    ContextRequest,
    ContextResponse,
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
from schemas.wire.portable import (
    FORMAT,
    FORMAT_VERSION,
    ChunkLine,
    CollectionLine,
    DeletedLine,
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
    ReferenceLine,
    ResultLine,
    SkippedLine,
    SupersededLine,
)
from schemas.wire.problems import FieldProblem, Problem
from schemas.wire.references import (
    ReferenceOut,
    ReferenceRequest,
    ReferencesResponse,
)
from schemas.wire.search import (
    CalibrationUsed,
    HitField,
    KeywordStats,
    LeftOut,
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
    "MAX_TOKENS",
    "METADATA_VALUE_CHARS",
    "MOST_ENTRIES",
    "NAMESPACE_PATTERN",
    "NOT_BLANK",
    "SPACE",
    "TOKEN_BOUNDS",
    "AnswerParts",
    "BreakerHealth",
    "CalibrationChange",
    "CalibrationUsed",
    "CalibrationsResponse",
    "ChunkLine",
    "CollectionLine",
    "CollectionName",
    "CollectionOut",
    "CollectionRequest",
    "CollectionsResponse",
    "ContextFormat",
    "ContextItem",
    "ContextRequest",
    "ContextResponse",
    "DailyReportResponse",
    "DeleteResponse",
    "DeletedLine",
    "DocumentOut",
    "DocumentsRequest",
    "DocumentsResponse",
    "End",
    "EngineHealth",
    "EntryDetail",
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
    "FitOut",
    "FloorPoint",
    "Header",
    "Health",
    "HeldOut",
    "HistoryItem",
    "HistoryLine",
    "HistoryResponse",
    "HitField",
    "Id",
    "ImportResponse",
    "Imported",
    "InteractionLine",
    "JobOut",
    "JobRunOut",
    "JobsResponse",
    "KeywordStats",
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
    "ReferenceLine",
    "ReferenceOut",
    "ReferenceOutcome",
    "ReferenceRequest",
    "ReferencesResponse",
    "RenameRequest",
    "Replacement",
    "ReplicaHealth",
    "ResultLine",
    "RetrieveRequest",
    "RetrieveResponse",
    "RetrievedEntry",
    "Revision",
    "RollbackRequest",
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
    "SkippedLine",
    "Source",
    "StatsResponse",
    "SupersededLine",
    "SweepRequest",
    "SweepResponse",
    "Text",
    "ThresholdPoint",
    "Tier",
    "TierStats",
    "Timestamp",
    "Totals",
    "UnansweredQuestion",
    "UpstreamAsked",
    "UpstreamHealth",
    "UpstreamRef",
    "Variant",
    "WrittenEntry",
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
    "ContextRequest": ContextRequest,
    "ContextResponse": ContextResponse,
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
    "ReferenceRequest": ReferenceRequest,
    "ReferenceOut": ReferenceOut,
    "ReferencesResponse": ReferencesResponse,
    "SweepRequest": SweepRequest,
    "SweepResponse": SweepResponse,
    "CalibrationsResponse": CalibrationsResponse,
    "RollbackRequest": RollbackRequest,
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
    schema: dict[str, Any] = _described(msgspec.json.schema(kind))
    _add_rules(schema.get("$defs", {}))
    return schema


def schema_components(kinds: list[type[Struct]], ref_template: str) -> dict[str, Any]:
    """The JSON Schema of ``kinds`` and of the types they use, by name."""
    _, components = msgspec.json.schema_components(kinds, ref_template=ref_template)
    described: dict[str, Any] = _described(components)
    _add_rules(described)
    return described


def _described(schema: Any) -> Any:
    """``schema`` with every description a docstring as ``inspect.cleandoc`` gives it (the
    indentation of its later lines removed), whichever msgspec release wrote it."""
    if isinstance(schema, dict):
        return {
            key: cleandoc(value)
            if key == "description" and isinstance(value, str)
            else _described(value)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [_described(item) for item in schema]
    return schema


def _add_rules(schemas: dict[str, Any]) -> None:
    """Add to each schema named after a wire type that type's ``RULES``."""
    for name, schema in schemas.items():
        schema.update(getattr(globals().get(name), "RULES", {}))
