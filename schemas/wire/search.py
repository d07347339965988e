"""Hybrid search: ``/v1/search``."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from msgspec import UNSET, Meta, Struct, UnsetType, field

from schemas.vocabulary import EMBEDDED_TIERS, Kind, Mode, Tier
from schemas.wire.fields import Label, Namespace, Question, Score, Timestamp


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
    min_score: Score | None = None
    """Leave out results scoring below this; default: the service's relevance floor,
    STRATA_MIN_SCORE. 0 turns the floor off."""
    relax: bool = True
    """When nothing is found, retry once over every tier, with ``min_score`` no higher than
    the service's floor."""
    explain: bool = False
    rerank: bool | None = None
    """Rerank the top candidates with the cross-encoder; default: STRATA_RERANK."""
    include_superseded: bool = False
    """Show superseded entries too, marked with ``superseded_by``."""
    as_of: Timestamp | None = None
    """Search memory as it held at this moment (docs/reference/api.md says what is exact)."""
    fields: list[HitField] | None = None
    """Only these fields of each hit besides ``id`` and ``score``, which every hit has;
    default: every field. ``[]``: ids and scores alone (an evaluation's or a pipeline's
    input); ``["snippet"]``: what an agent quotes. Less to send and to read at ``limit``
    100."""

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


Source = Literal["local", "upstream"]
"""Where a hit comes from: this service's memory, or the upstream asked when it found
nothing."""


class UpstreamRef(Struct, kw_only=True):
    """Where an upstream hit lives, to cite it or read it there."""

    name: str
    """The upstream's name (STRATA_UPSTREAM_NAME, else its host:port)."""
    namespace: str
    """The upstream namespace asked."""
    id: str
    """The entry's id in that namespace upstream."""


class UpstreamAsked(Struct, kw_only=True, omit_defaults=True):
    """What asking the upstream did, when the local memory found nothing."""

    name: str
    outcome: Literal["answered", "failed", "circuit_open", "busy"]
    """``answered`` (with ``results`` hits, maybe none); ``failed``: no attempt succeeded
    within STRATA_UPSTREAM_TIMEOUT; ``circuit_open``: not asked, its breaker is open;
    ``busy``: not asked, STRATA_UPSTREAM_IN_FLIGHT recalls were under way."""
    results: int = 0
    attempts: int = 0
    """Calls made, retries included."""
    took_ms: float = 0.0
    kept: int = 0
    """Hits stored here as local entries (STRATA_UPSTREAM_STORE=on)."""
    refused: int = 0
    """Hits not stored: out of an entry's bounds even once fitted (a blank or over-long
    text); each is named in ``degraded`` with the reason."""
    error: str | None = None


class ListRank(Struct):
    rank: int
    score: float


class SearchHit(Struct, kw_only=True, omit_defaults=True):
    """An entry found by a search, with the part of it that matched. Each field but ``id``
    and ``score`` is there unless the search's ``fields`` left it out; the entry's fields
    are those of ``EntryOut``."""

    id: str
    namespace: str | UnsetType = UNSET
    tier: Tier | UnsetType = UNSET
    text: str | UnsetType = UNSET
    timestamp: str | UnsetType = UNSET
    speaker: str | UnsetType | None = UNSET
    role: str | UnsetType | None = UNSET
    chain_type: str | UnsetType | None = UNSET
    tags: list[str] | UnsetType = UNSET
    expires_at: str | UnsetType | None = UNSET
    archived: bool | UnsetType = UNSET
    metadata: dict[str, Any] | UnsetType = UNSET
    kind: Kind | UnsetType = UNSET
    type: str | UnsetType | None = UNSET
    confidence: float | UnsetType | None = UNSET
    variants: list[str] | UnsetType = UNSET
    thread: str | UnsetType | None = UNSET
    superseded_by: str | None = None
    """The id of the entry that replaced this one (the latest, when several did)."""
    snippet: str | UnsetType = UNSET
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
    source: Source = "local"
    """``upstream``: returned by the upstream, not stored here (unless
    STRATA_UPSTREAM_STORE); ``id`` and ``text`` are the upstream's, quoted as it gave them."""
    upstream: UpstreamRef | None = None
    """For an upstream hit: the upstream, namespace and id to cite."""


HitField = Literal[
    "id",
    "score",
    "namespace",
    "tier",
    "text",
    "timestamp",
    "speaker",
    "role",
    "chain_type",
    "tags",
    "expires_at",
    "archived",
    "metadata",
    "kind",
    "type",
    "confidence",
    "variants",
    "thread",
    "superseded_by",
    "snippet",
    "explain",
    "file",
    "title",
    "lines",
    "score_pct",
    "truncated",
    "source",
    "upstream",
]
"""A field of ``SearchHit`` a search may ask for (``id`` and ``score`` come always)."""


class KeywordStats(Struct):
    """The BM25 statistics of the namespace searched, for the query's terms: the namespace's
    own, whatever other namespaces hold."""

    documents: int
    """Documents its keyword index holds (an entry found by passage counts each passage)."""
    terms: dict[str, int]
    """By query term as searched (stemmed, question words left out): the documents that hold
    it. A rarer term weighs more."""


class LeftOut(Struct):
    """A candidate a search left out, and why."""

    id: str
    superseded_by: str


class CalibrationUsed(Struct):
    """The threshold and floor an answer was given, and whose they are."""

    source: Literal["shipped", "namespace", "deployment"]
    """``namespace``: the namespace's own fit (``strata sweep``); ``deployment``: the fit of
    every namespace without one; ``shipped``: the calibration the service ships."""
    version: int
    """The fit's version (0: shipped); ``GET /v1/admin/calibrations`` lists them."""
    threshold: float
    floor: float
    """The relevance floor of a request that names none."""


class SearchResponse(Struct):
    results: list[SearchHit]
    mode: Mode
    took_ms: float
    degraded: list[str]
    relaxed: bool = False
    """The filtered search found nothing; these results come from the relaxed retry."""
    upstream: UpstreamAsked | None = None
    """Set when the search found nothing here and the upstream was asked (or would have
    been, but for its breaker or too many recalls under way)."""
    superseded: list[LeftOut] = field(default_factory=list)
    """With ``explain``: candidates left out because a newer entry replaced them (by then,
    with ``as_of``), best first; ``include_superseded`` shows them."""
    dropped: int = 0
    """Results that scored below ``min_score`` and were left out (of those within
    ``limit``): with no results, memory holds nothing relevant enough."""
    keywords: KeywordStats | None = None
    """With ``explain``, when the keyword index was searched: the statistics it scored by."""
    calibration: CalibrationUsed | None = None
    """With ``explain``: the calibration whose floor a request naming no ``min_score`` is
    given."""
