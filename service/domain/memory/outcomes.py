"""What a write, a commit and a recovery report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from schemas.vocabulary import Tier
from service.domain.entries import StoredEntry


@dataclass(frozen=True)
class Similar:
    """A live entry close to one just written, by the cosine of their vectors."""

    id: str
    tier: Tier
    similarity: float


@dataclass(frozen=True)
class WriteOutcome:
    ids: list[str]
    """The id of each entry written, in order; an entry's duplicate gives the existing id."""
    embedded: int
    indexed: int
    duplicate_of: Mapping[int, str] = field(default_factory=dict)
    """By position: the live entry an event repeated, so nothing new was stored for it."""
    similar: Mapping[int, list[Similar]] = field(default_factory=dict)
    """By position: for new tier A and C entries, the most similar live entries of the
    namespace above the similarity threshold."""


@dataclass(frozen=True)
class Committed:
    """One group commit of writes, as it ended."""

    writes: int
    """Writes committed together."""
    waits: tuple[float, ...]
    """Seconds each write waited for the group's turn."""
    stored: tuple[StoredEntry, ...]
    """The entries of the writes that were stored."""


@dataclass(frozen=True)
class Recovered:
    """What ``recover`` finished: entries indexed and removed, and entries set aside."""

    indexed: int
    removed: int
    quarantined: int
