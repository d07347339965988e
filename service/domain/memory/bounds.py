"""What an entry may hold, whoever writes it: the one check of every entry stored.

A write over REST or MCP, an import, an upstream hit kept here, a promotion, a collection's
chunks, a digest: each entry is checked here before it is stored, so that whatever the
ledger holds reads back within the documented ranges and its namespace's export imports
again. The wire types state the same bounds (``schemas.vocabulary``) for the requests that
carry them; a front end names the fields its own way (``events[n].speaker``, ``line 7``).

``fitted`` brings an entry from elsewhere (an upstream's hit) within the bounds where that
keeps what it says: labels and variants cut, tags and metadata capped, a confidence held to
[0, 1]. A text is never cut: an entry whose text is blank or too long stays out of bounds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from schemas.vocabulary import (
    ID_PATTERN,
    KINDS,
    LABEL_CHARS,
    MAX_METADATA,
    MAX_TAGS,
    MAX_VARIANTS,
    METADATA_VALUE_CHARS,
    NAMESPACE_PATTERN,
    TEXT_CHARS,
    VARIANT_CHARS,
)
from service.domain.aging.digests import ID_PREFIX as DIGEST_ID_PREFIX
from service.domain.entries import DIGEST, EARLIEST_TIME, LATEST_TIME, TIERS, Entry
from service.domain.memory.chunking import chunk_count
from service.errors import FieldError, InvalidInput
from service.settings import ChunkingSettings

LATEST_TEXT = "9999-12-31T23:59:59Z"
TIME_RANGE = f"1970-01-01T00:00:00Z to {LATEST_TEXT}"
Found = Callable[[str, str], None]
"""Notes a breach: its field and what is wrong."""
LABELS = ("speaker", "role", "chain_type", "type", "thread")
"""The entry's optional label fields."""


def breaches(entry: Entry, chunking: ChunkingSettings) -> list[FieldError]:
    """Every way ``entry`` is out of bounds, each naming its field (``tags[3]``,
    ``metadata.source``); none for an entry fit to store. ``chunking.max_chunks`` bounds
    the chunks its text makes."""
    found: list[FieldError] = []

    def bad(field: str, message: str) -> None:
        found.append(FieldError(field, message))

    if not re.fullmatch(ID_PATTERN, entry.id):
        bad("id", f"not an id (pattern {ID_PATTERN})")
    elif entry.id.startswith(DIGEST_ID_PREFIX) != (entry.kind == DIGEST):
        bad("id", f"ids starting {DIGEST_ID_PREFIX!r} are the digests'")
    if not re.fullmatch(NAMESPACE_PATTERN, entry.namespace):
        bad("namespace", f"not a namespace (pattern {NAMESPACE_PATTERN})")
    if entry.tier not in TIERS:
        bad("tier", f"not one of {', '.join(TIERS)}")
    if entry.kind not in KINDS:
        bad("kind", f"not one of {', '.join(KINDS)}")
    _text(entry.text, chunking, bad)
    if not _in_time(entry.timestamp):
        bad("timestamp", f"outside the supported range, {TIME_RANGE}")
    if entry.expires_at is not None:
        if entry.tier != "C":
            bad("expires_at", "only tier C entries expire")
        elif not _in_time(entry.expires_at):
            bad("expires_at", f"the entry would expire after {LATEST_TEXT}")
    for name in LABELS:
        value = getattr(entry, name)
        if value is not None and not _label(value):
            bad(name, f"must be 1 to {LABEL_CHARS} characters")
    if len(entry.tags) > MAX_TAGS:
        bad("tags", f"{len(entry.tags)} tags, at most {MAX_TAGS}")
    for n, tag in enumerate(entry.tags):
        if not _label(tag):
            bad(f"tags[{n}]", f"must be 1 to {LABEL_CHARS} characters")
    _metadata(entry, bad)
    if entry.confidence is not None and not 0.0 <= entry.confidence <= 1.0:
        bad("confidence", "must be in [0, 1]")
    if entry.variants and entry.kind != "pattern":
        bad("variants", "only entries of kind pattern have")
    if len(entry.variants) > MAX_VARIANTS:
        bad("variants", f"{len(entry.variants)} variants, at most {MAX_VARIANTS}")
    for n, variant in enumerate(entry.variants):
        if not 1 <= len(variant) <= VARIANT_CHARS:
            bad(f"variants[{n}]", f"must be 1 to {VARIANT_CHARS} characters")
    if entry.context is not None and len(entry.context) > TEXT_CHARS:
        bad("context", f"over {TEXT_CHARS} characters")
    return found


def require_bounds(entries: list[Entry], chunking: ChunkingSettings, where: str) -> None:
    """InvalidInput naming ``<where>[n].<field>`` for every breach of ``entries``; nothing
    when all are within bounds."""
    errors = [
        FieldError(f"{where}[{n}].{e.field}", e.message)
        for n, entry in enumerate(entries)
        for e in breaches(entry, chunking)
    ]
    if errors:
        raise InvalidInput(errors)


def fitted(entry: Entry) -> Entry:
    """``entry`` brought within the bounds a field at a time where that keeps its sense:
    a label or variant cut to its longest (an empty one dropped), tags and variants capped
    at their most (the first kept), metadata keys past the most dropped, and so are values
    that are not scalars, not finite or too long to cut without corrupting them;
    a confidence outside [0, 1] held to its nearer end (a non-finite one unknown), times
    held to the supported range. The text is left as it is."""
    tags = [t for t in (_cut(t, LABEL_CHARS) for t in entry.tags) if t is not None]
    variants = [v for v in (_cut(v, VARIANT_CHARS) for v in entry.variants) if v is not None]
    confidence = entry.confidence
    if confidence is not None:
        confidence = min(max(confidence, 0.0), 1.0) if math.isfinite(confidence) else None
    expires_at = entry.expires_at if entry.tier == "C" else None
    return replace(
        entry,
        speaker=_cut(entry.speaker, LABEL_CHARS),
        role=_cut(entry.role, LABEL_CHARS),
        chain_type=_cut(entry.chain_type, LABEL_CHARS),
        type=_cut(entry.type, LABEL_CHARS),
        thread=_cut(entry.thread, LABEL_CHARS),
        timestamp=_held(entry.timestamp),
        expires_at=None if expires_at is None else _held(expires_at),
        tags=tuple(dict.fromkeys(tags))[:MAX_TAGS],
        metadata=_fitted_metadata(entry.metadata),
        confidence=confidence,
        variants=tuple(variants)[:MAX_VARIANTS] if entry.kind == "pattern" else (),
    )


def _text(text: str, chunking: ChunkingSettings, bad: Found) -> None:
    if not text.strip():
        bad("text", "must not be blank")
    elif len(text) > TEXT_CHARS:
        bad("text", f"over {TEXT_CHARS} characters")
    else:
        chunks = chunk_count(text, chunking.words, chunking.overlap)
        if chunks > chunking.max_chunks:
            bad(
                "text",
                f"too long: {chunks} chunks of {chunking.words} words, "
                f"at most {chunking.max_chunks} per entry",
            )


def _metadata(entry: Entry, bad: Found) -> None:
    metadata = entry.metadata
    if len(metadata) > MAX_METADATA:
        bad("metadata", f"{len(metadata)} keys, at most {MAX_METADATA}")
    for key, value in metadata.items():
        if not isinstance(key, str) or not _label(key):
            bad("metadata", f"key {str(key)[:40]!r}: must be 1 to {LABEL_CHARS} characters")
        # A digest's metadata is the archive job's summary (digests.py bounds its size).
        elif not (entry.kind == DIGEST and key == "digest") and not _scalar(value):
            bad(
                f"metadata.{key}",
                "must be a string of at most "
                f"{METADATA_VALUE_CHARS} characters, a finite number, a boolean or null",
            )


def _scalar(value: object) -> bool:
    if value is None or isinstance(value, bool | int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str) and len(value) <= METADATA_VALUE_CHARS


def _fitted_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in metadata.items() if isinstance(k, str) and _label(k) and _scalar(v)}
    return dict(list(kept.items())[:MAX_METADATA])


def _label(value: str) -> bool:
    return 1 <= len(value) <= LABEL_CHARS


def _cut(value: str | None, most: int) -> str | None:
    return value[:most] if value else None


def _in_time(seconds: float) -> bool:
    return EARLIEST_TIME <= seconds <= LATEST_TIME


def _held(seconds: float) -> float:
    return min(max(seconds, EARLIEST_TIME), LATEST_TIME) if math.isfinite(seconds) else 0.0
