"""Writing events and reading, deleting and tracing the entries they become:
``/v1/events`` and ``/v1/entries``."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from msgspec import Meta, Struct, field

from schemas.vocabulary import Kind, Tier, WrittenKind
from schemas.wire.fields import Id, Label, Metadata, Namespace, Score, Text, Timestamp, Variant


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
    kind: WrittenKind = "memory"
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


class DeleteResponse(Struct):
    id: str
    namespace: str
    deleted: bool


class HistoryItem(Struct):
    at: str
    action: str
    """created, updated, embedded, promoted, archived, restored or deleted."""
    actor: str


class HistoryResponse(Struct):
    id: str
    namespace: str
    history: list[HistoryItem]
