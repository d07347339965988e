"""An agent's context in one call: ``/v1/context``."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct, field

from schemas.vocabulary import Kind, Tier
from schemas.wire.fields import Label, Namespace, Question, Score, Timestamp
from schemas.wire.search import CalibrationUsed

MAX_TOKENS = 512
"""The default budget of a context block, in the embedding model's tokens."""
TOKEN_BOUNDS = (32, 32_768)
"""The least and the most tokens a context block may be asked for."""

MOST_ENTRIES = 50
"""The most entries a context block considers."""

ContextFormat = Literal["markdown", "text"]


class ContextRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    question: Question
    namespace: Namespace | None = None
    max_tokens: Annotated[int, Meta(ge=TOKEN_BOUNDS[0], le=TOKEN_BOUNDS[1])] = MAX_TOKENS
    """The most tokens ``context`` may hold, counted with the embedding model's tokenizer."""
    format: ContextFormat = "markdown"
    """``markdown``: headings and a bullet per entry; ``text``: plain lines."""
    max_entries: Annotated[int, Meta(ge=1, le=MOST_ENTRIES)] | None = None
    """The most entries considered (best first), before the budget leaves some out; unset:
    as many as the budget may hold (more for a larger budget), at most 50."""
    asker: Label | None = None
    """Who asks (an agent's name); kept in the interaction log."""
    min_score: Score | None = None
    """Leave out entries whose search score is below it; unset: the service's relevance
    floor (``STRATA_MIN_SCORE``); 0: none."""
    tiers: Annotated[list[Tier], Meta(min_length=1)] | None = None
    speaker: Label | None = None
    chain_type: Label | None = None
    tags: list[Label] = field(default_factory=list)
    since: Timestamp | None = None
    until: Timestamp | None = None
    include_archived: bool = False
    kind: Kind | None = None
    as_of: Timestamp | None = None
    """Memory as it held at this moment."""


class ContextItem(Struct, kw_only=True, omit_defaults=True):
    """An entry the block holds, as it holds it."""

    id: str
    tier: Tier
    timestamp: str
    citation: str
    """``[id date speaker]``, as the block cites it under its tier's heading."""
    text: str
    """The entry's text as the block shows it: whole, or cut at sentence boundaries around
    its best passage (``…`` where text is left out)."""
    score: float
    """The answer's score of the entry; entries come best first by it."""
    speaker: str | None = None
    type: str | None = None
    cut: bool = False
    replaces: list[str] = field(default_factory=list)
    """Ids of the entries it superseded (never shown themselves)."""
    folded: list[str] = field(default_factory=list)
    """Ids of near-repeats it stands for (not shown themselves)."""


class ContextResponse(Struct, kw_only=True):
    interaction_id: str
    """Quote it in ``POST /v1/feedback``."""
    context: str
    """The block, at most ``max_tokens`` tokens."""
    tokens: int
    """Tokens of ``context``, counted with the embedding model's tokenizer (without the
    special tokens it adds); one per character not white space when no model is loaded."""
    max_tokens: int
    entries: list[ContextItem]
    reasoning_patterns: list[ContextItem]
    left_out: list[str]
    """Ids of relevant entries the budget left no room for, best first."""
    nothing_relevant: bool
    """No entry cleared the relevance floor: ``context`` says memory holds nothing relevant."""
    strong_match: bool
    answer_confidence: float
    took_ms: float
    degraded: list[str]
    calibration: CalibrationUsed | None = None
    """Which calibration judged ``strong_match`` and set the floor of a request naming none."""
    reference_id: str | None = None
    """The namespace's reference question of the same words (``/v1/references``) whose
    verdict this is: the entries it names first, a strong match of confidence 1; or, as
    nothing answers it, no strong match, confidence 0. None: the calibration's verdict."""
