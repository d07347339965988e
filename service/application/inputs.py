"""Requests as the front ends decode them, checked and turned into domain values.

Every rule a request must meet beyond its wire schema lives here, and each failure names
the offending field; nothing reaches a store before all of a request has passed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from schemas import wire
from service.domain.aging.tiers import ExpiryPolicy
from service.domain.entries import EARLIEST_TIME, LATEST_TIME, TIERS, Entry
from service.domain.memory.bounds import TIME_RANGE, breaches
from service.domain.model import Filters
from service.domain.search.query import SearchQuery
from service.errors import FieldError, InvalidInput
from service.lib.fields import fields_of
from service.settings import ChunkingSettings

AS_WRITTEN = (
    "tier",
    "text",
    "speaker",
    "role",
    "chain_type",
    "kind",
    "type",
    "confidence",
    "thread",
)
"""The fields of an event its entry keeps unchanged."""

NamespaceOf = Callable[[str | None, str], str]
"""Resolves a requested namespace for the caller (field name for errors); raises if denied."""


def parse_time(value: str, field: str, errors: list[FieldError]) -> float | None:
    """Epoch seconds of an ISO 8601 timestamp; naive times are taken as UTC. Times outside
    1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z (after the offset) are refused."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        errors.append(FieldError(field, f"not an ISO 8601 timestamp: {value!r}"))
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        seconds = moment.timestamp()
    except (OverflowError, ValueError, OSError):
        seconds = -1.0
    if not EARLIEST_TIME <= seconds <= LATEST_TIME:
        errors.append(FieldError(field, f"outside the supported range, {TIME_RANGE}"))
        return None
    return seconds


def to_entries(
    events: Sequence[wire.Event],
    *,
    now: float,
    new_id: Callable[[], str],
    policy: ExpiryPolicy,
    namespace: NamespaceOf,
    chunking: ChunkingSettings,
) -> list[Entry]:
    """Domain entries for a batch, or InvalidInput listing every bad field of the batch:
    the event's own rules, then the bounds of every stored entry (``bounds.breaches``; a
    text making more than ``chunking.max_chunks`` chunks is refused)."""
    errors: list[FieldError] = []
    entries: list[Entry] = []
    seen: set[tuple[str, str]] = set()
    for n, event in enumerate(events):
        where = f"events[{n}]"
        ns = namespace(event.namespace, f"{where}.namespace")
        timestamp = now
        if event.timestamp is not None:
            parsed = parse_time(event.timestamp, f"{where}.timestamp", errors)
            timestamp = now if parsed is None else parsed
        if event.ttl_days is not None and event.tier != "C":
            errors.append(FieldError(f"{where}.ttl_days", "only tier C entries expire"))
        entry_id = event.id or new_id()
        if (ns, entry_id) in seen:
            errors.append(FieldError(f"{where}.id", f"{entry_id!r} appears twice in the batch"))
        seen.add((ns, entry_id))
        entry = Entry(
            **fields_of(event, *AS_WRITTEN),
            id=entry_id,
            namespace=ns,
            timestamp=timestamp,
            tags=tuple(dict.fromkeys(event.tags)),
            expires_at=policy.expires_at(event.tier, timestamp, event.ttl_days, event.chain_type),
            metadata=dict(event.metadata),
            variants=tuple(event.variants),
        )
        # An expiry is the event's time and lifetime: a late one is blamed on either.
        expiry = "ttl_days" if event.ttl_days is not None else "timestamp"
        errors += [
            FieldError(f"{where}.{expiry if e.field == 'expires_at' else e.field}", e.message)
            for e in breaches(entry, chunking)
        ]
        entries.append(entry)
    if errors:
        raise InvalidInput(errors)
    return entries


def to_query(
    request: wire.SearchRequest, *, namespace: str, now: float, floor: float
) -> SearchQuery:
    """The domain query of a search request, or InvalidInput naming every bad field.
    ``floor``: the ``min_score`` of a request that names none (STRATA_MIN_SCORE)."""
    errors: list[FieldError] = []
    if not request.query.strip():
        errors.append(FieldError("query", "must not be blank"))
    since = parse_time(request.since, "since", errors) if request.since is not None else None
    until = parse_time(request.until, "until", errors) if request.until is not None else None
    if since is not None and until is not None and since > until:
        errors.append(FieldError("until", "is before since"))
    as_of = parse_time(request.as_of, "as_of", errors) if request.as_of is not None else None
    if errors:
        raise InvalidInput(errors)
    tiers = tuple(t for t in TIERS if t in (request.tiers or TIERS))
    filters = Filters(
        namespace=namespace,
        tiers=tiers,
        now=now,
        speaker=request.speaker,
        chain_type=request.chain_type,
        tags=tuple(request.tags),
        since=since,
        until=until,
        include_archived=request.include_archived,
        kind=request.kind,
        include_superseded=request.include_superseded,
        as_of=as_of,
    )
    return SearchQuery(
        request.query,
        filters,
        request.mode,
        request.limit,
        request.explain,
        request.rerank,
        min_score=floor if request.min_score is None else request.min_score,
        relax=request.relax,
        floor=floor,
    )


def moment(value: str | None, field: str) -> float | None:
    """Epoch seconds of an optional ISO 8601 timestamp, or InvalidInput naming ``field``."""
    if value is None:
        return None
    errors: list[FieldError] = []
    seconds = parse_time(value, field, errors)
    if errors:
        raise InvalidInput(errors)
    return seconds


def not_blank(value: str, field: str) -> str:
    """``value`` unless it is only whitespace (InvalidInput naming ``field``)."""
    if not value.strip():
        raise InvalidInput.one(field, "must not be blank")
    return value
