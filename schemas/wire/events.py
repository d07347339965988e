"""Writing events and reading, deleting and tracing the entries they become:
``/v1/events`` and ``/v1/entries``."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from msgspec import Meta, Struct, field

from schemas.vocabulary import MAX_TAGS, MAX_VARIANTS, Kind, Tier, WrittenKind
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
    tags: Annotated[list[Label], Meta(max_length=MAX_TAGS)] = field(default_factory=list)
    timestamp: Timestamp | None = None
    ttl_days: Annotated[float, Meta(gt=0, le=36_500)] | None = None
    metadata: Metadata = field(default_factory=dict)
    kind: WrittenKind = "memory"
    """``pattern``: a reasoning pattern, given back with its variants by ``/v1/retrieve``."""
    type: Label | None = None
    """What the entry is: decision, framework, position, reaction, fact, ...; a ``decision``
    is ranked as one, first for a question that asks for one; other types may weigh in
    ``/v1/retrieve``'s score (STRATA_TYPE_WEIGHTS)."""
    confidence: Score | None = None
    """How sure the author was, in [0, 1]."""
    variants: Annotated[list[Variant], Meta(max_length=MAX_VARIANTS)] = field(default_factory=list)
    """A pattern's variants for different situations."""
    thread: Label | None = None
    """The conversation, session or task the event is part of. Each event of a thread is
    indexed for BM25 with the one written before it (a reply is found by what it answers)."""
    supersedes: Annotated[list[Id], Meta(max_length=64)] = field(default_factory=list)
    """Ids of live entries of the same namespace this event replaces: they are kept, marked
    superseded, and left out of searches and retrieve unless asked for. An unknown id is
    refused (422 naming it) and nothing of the batch is written."""

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


class SimilarEntry(Struct):
    """A live entry close to one just written (cosine of their first chunks)."""

    id: str
    tier: Tier
    similarity: float


class WrittenEntry(Struct, kw_only=True, omit_defaults=True):
    """What became of one event of a write."""

    id: str
    duplicate_of: str | None = None
    """The live entry the event repeated (same text, normalised, tier, speaker and
    namespace; written without an id): nothing new was stored, ``id`` is that entry's."""
    supersedes: list[str] = field(default_factory=list)
    """The ids it replaced."""
    similar: list[SimilarEntry] = field(default_factory=list)
    """For a new tier A or C entry: the most similar live entries of the namespace at or
    above STRATA_SIMILAR_THRESHOLD, best first (candidates for ``supersedes``)."""


class EventsResponse(Struct, kw_only=True):
    ids: list[str]
    """The entry of each event, in order (a repeat gives the existing entry's id)."""
    embedded: int
    indexed: int
    written: list[WrittenEntry] = field(default_factory=list)
    """Each event's outcome, in order."""


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
    superseded_by: str | None = None
    """The id of the entry that replaced this one (the latest, when several did)."""


class Replacement(Struct, kw_only=True, omit_defaults=True):
    """One supersession as an entry shows it: the other entry, when and by whom."""

    id: str
    at: str
    actor: str
    text: str | None = None
    """The other entry's text, when it is shown with it."""


class EntryDetail(EntryOut, kw_only=True):
    """An entry read alone, with its place in a chain of revisions."""

    supersedes: list[Replacement] = field(default_factory=list)
    """The entries it replaced, oldest first."""
    replaced_by: list[Replacement] = field(default_factory=list)
    """The entries that replaced it, oldest first (the last is ``superseded_by``)."""


class DeleteResponse(Struct):
    id: str
    namespace: str
    deleted: bool


class HistoryItem(Struct, kw_only=True, omit_defaults=True):
    at: str
    action: str
    """created, updated, embedded, promoted, archived, restored, deleted, superseded or
    reinstated."""
    actor: str
    detail: str | None = None
    """superseded: the id of the entry that replaced it; reinstated: the id of the entry
    whose deletion made it current again."""


class HistoryResponse(Struct):
    id: str
    namespace: str
    history: list[HistoryItem]
