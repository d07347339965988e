"""Entries as the domain holds them: their keys, the entry and its chunks as stored, their
history, and what is archived, removed, erased or set aside."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

# The vocabulary the wire contract shares with the domain, defined in schemas/vocabulary.py.
from schemas.vocabulary import DIGEST as DIGEST
from schemas.vocabulary import EMBEDDED_TIERS as EMBEDDED_TIERS
from schemas.vocabulary import ID_PATTERN as ID_PATTERN
from schemas.vocabulary import MODES as MODES
from schemas.vocabulary import NAMESPACE_PATTERN as NAMESPACE_PATTERN
from schemas.vocabulary import TIERS as TIERS
from schemas.vocabulary import Kind as Kind
from schemas.vocabulary import Mode as Mode
from schemas.vocabulary import Tier as Tier

DEFAULT_NAMESPACE = "default"

EARLIEST_TIME = 0.0
"""1970-01-01T00:00:00Z: the earliest time an entry may carry."""
LATEST_TIME = 253_402_300_799.0
"""9999-12-31T23:59:59Z: the latest time an entry may carry, its expiry included."""


SPACES = re.compile(r"\s+")


def entry_key(namespace: str, entry_id: str) -> str:
    """The store-wide key of an entry; ids are unique within a namespace."""
    return f"{namespace}:{entry_id}"


def key_namespace(key: str) -> str:
    """The namespace of an entry key (namespaces have no colon; ids may)."""
    return key.split(":", 1)[0]


def key_id(key: str) -> str:
    """The id of an entry key."""
    return key.split(":", 1)[1]


def erasure_key(namespace: str) -> str:
    """The key the change log records a namespace's erasure under: an entry key with no id,
    which no entry has (ids are never empty)."""
    return f"{namespace}:"


def erased_namespace(key: str) -> str | None:
    """The namespace a change-log key says was erased; None for an entry's key."""
    namespace, _, entry_id = key.partition(":")
    return namespace if not entry_id else None


@dataclass(frozen=True)
class Entry:
    """One event as kept by the ledger and the indexes."""

    id: str
    namespace: str
    tier: Tier
    text: str
    timestamp: float
    speaker: str | None = None
    role: str | None = None
    chain_type: str | None = None
    tags: tuple[str, ...] = ()
    expires_at: float | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    archived: bool = False
    kind: Kind = "memory"
    """``pattern``: a reasoning pattern, returned with its ``variants`` by retrieve."""
    type: str | None = None
    """What the entry is (decision, framework, position, reaction, fact, ...)."""
    confidence: float | None = None
    """How sure its author was, in [0, 1]."""
    variants: tuple[str, ...] = ()
    thread: str | None = None
    """The conversation, session or task the entry belongs to."""
    context: str | None = None
    """The turn before it in its thread, as written then; indexed for BM25 with it."""
    superseded_by: str | None = None
    """The id of the entry that replaced it (the latest, when several did); kept by the
    ledger from the writes that name it in ``supersedes``, ignored when an entry is written."""

    @cached_property
    def key(self) -> str:
        return entry_key(self.namespace, self.id)

    @cached_property
    def fingerprint(self) -> str:
        """What repeats of the entry share within its namespace (two events record the same
        thing): a digest of its tier, speaker and normalised text. A repeat written without
        an id is not stored twice."""
        parts = "\0".join((self.tier, self.speaker or "", normalised(self.text)))
        return hashlib.blake2b(parts.encode(), digest_size=16).hexdigest()

    @property
    def embedded(self) -> bool:
        return self.tier in EMBEDDED_TIERS


def normalised(text: str) -> str:
    """A text as compared for repeats: Unicode NFKC, case folded, runs of white space made
    one space, trimmed."""
    return SPACES.sub(" ", folded_case(text)).strip()


def folded_case(text: str) -> str:
    """A text as compared word by word: Unicode NFKC, case folded."""
    return unicodedata.normalize("NFKC", text).casefold()


@dataclass(frozen=True)
class Chunk:
    """A window of an entry's text and, for embedded tiers, its vector."""

    key: str
    number: int
    text: str
    vector: tuple[float, ...] | None = None


@dataclass(frozen=True)
class StoredEntry:
    """An entry with the chunks it was indexed with."""

    entry: Entry
    chunks: tuple[Chunk, ...]
    tokens: int = 0
    """Model tokens of all its chunks: what embedding it costs (or would cost, for tier E)."""

    @property
    def has_vectors(self) -> bool:
        return bool(self.chunks) and all(c.vector is not None for c in self.chunks)

    @property
    def in_vector_index(self) -> bool:
        """Chroma holds the vectors of live tier A and C entries only."""
        return self.entry.embedded and not self.entry.archived and self.has_vectors


def vectors_may_remain(state: str, tier: Tier, archived: bool) -> bool:
    """Whether the vector index may still hold vectors of an entry the ledger holds in
    ``state`` (``pending``, ``synced``, ``deleting`` or ``quarantined``). None are left of a
    synced entry out of the index (tier E, or archived): indexing it deleted them. Of any
    other some may be: it is in the index (live, tier A or C), or its indexing is unfinished
    and what it reached unknown."""
    return state != "synced" or (tier in EMBEDDED_TIERS and not archived)


@dataclass(frozen=True)
class HistoryEvent:
    at: float
    action: str
    """created, updated, embedded, promoted, archived, restored, deleted, superseded or
    reinstated."""
    actor: str
    detail: str | None = None
    """For superseded and reinstated: the id of the entry that replaced it, or whose
    deletion gave it back."""


@dataclass(frozen=True)
class Supersession:
    """One entry replaced by another of its namespace: when, and by whom."""

    older: str
    """The key of the entry replaced."""
    newer: str
    """The key of the entry that replaced it."""
    at: float
    actor: str


@dataclass(frozen=True)
class ExportedEntry:
    """An entry whole, as an export carries it and an import restores it: its chunks
    (with their vectors) and its history."""

    stored: StoredEntry
    history: tuple[HistoryEvent, ...]
    supersedes: tuple[Supersession, ...] = ()
    """The entries it replaced (it is the ``newer`` of each)."""


@dataclass(frozen=True)
class RemovedEntry:
    """What the ledger keeps of an entry removed for good: its key and its history (who
    did what to it, and when; its last event most often ``deleted``), as an export carries
    it and an import restores it."""

    key: str
    history: tuple[HistoryEvent, ...]


@dataclass(frozen=True)
class Erasure:
    """The audit record a namespace's erasure leaves: who, when and how much was removed,
    by kind (entries, history, collections, interactions, ...); nothing of the content."""

    namespace: str
    at: float
    actor: str
    counts: Mapping[str, int]


@dataclass(frozen=True)
class Quarantined:
    """An entry set aside because it could not be indexed; kept in the ledger, out of every
    read, until it is written again or deleted."""

    key: str
    reason: str
    at: float
