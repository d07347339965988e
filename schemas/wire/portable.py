"""A namespace as a file, and its erasure: ``/v1/namespaces/{namespace}``.

``GET .../export`` streams a namespace as JSON Lines, one ``ExportLine`` a line, in this
order (each names its kind in ``record``): a ``header``, every ``entry`` (by id), every
``deleted`` entry's history (by id), every ``collection`` followed by its ``file`` lines,
every ``interaction`` (in the order asked), every ``feedback`` (in the order given), every
``reference`` question (in the order recorded), and an ``end`` line counting the lines
before it, so a cut file is told from a whole one.
``POST .../import`` reads the same. Times are seconds since the epoch (UTC), as JSON
numbers, so an import keeps them exactly. The format is versioned by the header's
``format`` and ``version``; a reader refuses a version it does not know (version 2 added
the ``deleted`` lines, version 3 the ``reference`` lines; an older file reads as before).
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct, field

from schemas.vocabulary import MAX_TAGS, MAX_VARIANTS, TEXT_CHARS, Kind, Rating, Tier
from schemas.wire.fields import Id, Label, Metadata, Namespace, Score, Text, Variant
from schemas.wire.references import ReferenceSource

FORMAT: Literal["strata-namespace"] = "strata-namespace"
FORMAT_VERSION = 3

Seconds = Annotated[
    float,
    Meta(ge=0, le=253_402_300_799, description="Seconds since 1970-01-01T00:00:00Z"),
]
Count = Annotated[int, Meta(ge=0)]
State = Literal["live", "archived"]
"""What an entry is now: ``live``, or ``archived`` (kept, hidden from default searches, no
vector in the index). A later version adds ``superseded`` here."""


class ExportSettings(Struct, kw_only=True):
    """The settings an entry's chunks and vectors were made with."""

    chunk_words: int
    chunk_overlap: int
    max_chunks: int


class ExportCounts(Struct, kw_only=True):
    """What the namespace held when the export began (writes made while it streams may
    or may not be in the file)."""

    entries: Count
    collections: Count
    files: Count
    interactions: Count
    feedback: Count
    references: Count = 0


class Header(Struct, tag="header", tag_field="record", forbid_unknown_fields=True, kw_only=True):
    format: Literal["strata-namespace"]
    version: Annotated[int, Meta(ge=1)]
    strata: str
    """The release that wrote the file."""
    namespace: Namespace
    """The namespace exported; an import may put it under another name."""
    exported_at: Seconds
    vectors: bool
    """Whether entries carry their chunks with their vectors."""
    model: str | None
    """The embedding model the vectors were made with (null: no model was loaded)."""
    dimension: Annotated[int, Meta(ge=1)] | None
    settings: ExportSettings
    counts: ExportCounts


class HistoryLine(Struct, forbid_unknown_fields=True, kw_only=True):
    at: Seconds
    action: Label
    """created, updated, embedded, promoted, archived, restored, deleted, superseded or
    reinstated."""
    actor: Annotated[str, Meta(max_length=200)]
    detail: Annotated[str, Meta(max_length=200)] | None = None
    """For superseded and reinstated: the id of the entry that replaced it, or whose
    deletion gave it back."""


class SupersededLine(Struct, forbid_unknown_fields=True, kw_only=True):
    id: Id
    """An entry of the namespace this one replaced."""
    at: Seconds
    actor: Annotated[str, Meta(max_length=200)]


class ChunkLine(Struct, forbid_unknown_fields=True, kw_only=True):
    text: Text
    vector: Annotated[
        str,
        Meta(
            max_length=65_536,
            description="The chunk's vector: little-endian float32 values, base64",
            extra_json_schema={"contentEncoding": "base64"},
        ),
    ]


class EntryLine(Struct, tag="entry", tag_field="record", forbid_unknown_fields=True, kw_only=True):
    id: Id
    tier: Tier
    text: Text
    timestamp: Seconds
    state: State = "live"
    speaker: Label | None = None
    role: Label | None = None
    chain_type: Label | None = None
    tags: Annotated[list[Label], Meta(max_length=MAX_TAGS)] = field(default_factory=list)
    expires_at: Seconds | None = None
    metadata: Metadata = field(default_factory=dict)
    kind: Kind = "memory"
    type: Label | None = None
    confidence: Score | None = None
    variants: Annotated[list[Variant], Meta(max_length=MAX_VARIANTS)] = field(default_factory=list)
    thread: Label | None = None
    context: Annotated[str, Meta(max_length=TEXT_CHARS)] | None = None
    """The turn before it in its thread, as written then."""
    tokens: Count = 0
    """Model tokens its chunks cost to embed."""
    history: list[HistoryLine] = field(default_factory=list)
    """Oldest first."""
    supersedes: Annotated[list[SupersededLine], Meta(max_length=1000)] = field(default_factory=list)
    """The entries this one replaced (see supersession in docs/reference/api.md)."""
    chunks: list[ChunkLine] | None = None
    """With ``?vectors=true``, for entries that have vectors: the texts embedded and their
    vectors, in order."""


class DeletedLine(
    Struct, tag="deleted", tag_field="record", forbid_unknown_fields=True, kw_only=True
):
    """The audit trail of an entry deleted for good: the history the ledger keeps of it
    (who did what to it, and when). An import writes it for an id that holds no entry."""

    id: Id
    history: Annotated[list[HistoryLine], Meta(min_length=1)]
    """Oldest first; the last event is most often ``deleted``."""


class CollectionLine(
    Struct, tag="collection", tag_field="record", forbid_unknown_fields=True, kw_only=True
):
    id: Annotated[str, Meta(min_length=1, max_length=200)]
    name: Namespace
    path: Annotated[str, Meta(min_length=1, max_length=4096)]
    mask: Annotated[str, Meta(min_length=1, max_length=1000)]
    tier: Tier
    created_at: Seconds
    scanned_at: Seconds | None = None


class FileLine(Struct, tag="file", tag_field="record", forbid_unknown_fields=True, kw_only=True):
    collection: Annotated[str, Meta(min_length=1, max_length=200)]
    """The ``id`` of its collection, whose line comes before."""
    path: Annotated[str, Meta(min_length=1, max_length=4096)]
    hash: Annotated[str, Meta(min_length=1, max_length=200)]
    chunks: Count
    text: str | None = None
    """The text the file was indexed from."""


class ResultLine(Struct, forbid_unknown_fields=True, kw_only=True):
    id: str
    relevance: float
    score: float


class InteractionLine(
    Struct, tag="interaction", tag_field="record", forbid_unknown_fields=True, kw_only=True
):
    id: Annotated[str, Meta(min_length=1, max_length=200)]
    at: Seconds
    question: Annotated[str, Meta(max_length=1_000_000)]
    results: list[ResultLine]
    strong_match: bool
    best_relevance: float
    took_ms: Annotated[float, Meta(ge=0)]
    asker: Annotated[str, Meta(max_length=200)] | None = None
    answer_confidence: float | None = None


class FeedbackLine(
    Struct, tag="feedback", tag_field="record", forbid_unknown_fields=True, kw_only=True
):
    interaction_id: Annotated[str, Meta(min_length=1, max_length=200)]
    """An interaction whose line comes before."""
    at: Seconds
    rating: Rating
    actor: Annotated[str, Meta(max_length=200)]
    comment: Annotated[str, Meta(max_length=100_000)] | None = None


class ReferenceLine(
    Struct, tag="reference", tag_field="record", forbid_unknown_fields=True, kw_only=True
):
    id: Annotated[str, Meta(min_length=1, max_length=200)]
    question: Annotated[str, Meta(min_length=1, max_length=10_000)]
    answers: Annotated[list[str], Meta(max_length=100)]
    """Ids of entries of the file; empty: nothing in memory answers the question."""
    source: ReferenceSource
    actor: Annotated[str, Meta(max_length=200)]
    at: Seconds


class End(Struct, tag="end", tag_field="record", forbid_unknown_fields=True, kw_only=True):
    lines: Count
    """Lines before this one, the header included."""


ExportLine = (
    Header
    | EntryLine
    | DeletedLine
    | CollectionLine
    | FileLine
    | InteractionLine
    | FeedbackLine
    | ReferenceLine
    | End
)
"""One line of an export file."""


class SkippedLine(Struct):
    line: int
    """1-based."""
    reason: str


class Imported(Struct, kw_only=True):
    """How many of each were written; ``unchanged`` entries were already as the file has
    them (an import run twice writes nothing the second time)."""

    entries: int
    unchanged: int
    embedded: int
    """Entries whose vectors were made again (the file had none, or another model's)."""
    collections: int
    files: int
    interactions: int
    feedback: int
    deleted: int
    """Deleted entries whose history was written (one already as the file has it, or an id
    that holds an entry here, is left alone)."""
    references: int = 0
    """Reference questions kept (one the namespace has already is left alone)."""


class ImportResponse(Struct, kw_only=True):
    namespace: str
    source: str
    """The namespace the file was exported from."""
    lines: int
    imported: Imported
    skipped: list[SkippedLine]
    """Bad lines left out (with ``skip_bad_lines``), at most the first 100."""
    skipped_count: int


class ErasureCounts(Struct, kw_only=True):
    entries: int
    history: int
    quarantined: int
    changes: int
    collections: int
    files: int
    interactions: int
    feedback: int
    references: int = 0
    """Reference questions (and the fits of their sweeps)."""


class ErasureResponse(Struct, kw_only=True):
    """The audit record an erasure leaves: who, when and how much; nothing of the content."""

    namespace: str
    erased_at: str
    actor: str
    counts: ErasureCounts


class ErasuresResponse(Struct):
    erasures: list[ErasureResponse]
