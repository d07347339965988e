"""Wire types to domain values and back; semantic checks that name the offending field."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from schemas import wire
from service.domain.answer import Answered
from service.domain.models import TIERS, Entry, Filters, SearchQuery, SearchResult
from service.domain.tiers import ExpiryPolicy, is_live
from service.errors import FieldError, InvalidInput


def parse_time(value: str, field: str, errors: list[FieldError]) -> float | None:
    """Epoch seconds of an ISO 8601 timestamp; naive times are taken as UTC."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        errors.append(FieldError(field, f"not an ISO 8601 timestamp: {value!r}"))
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def format_time(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


def to_entries(
    events: list[wire.Event],
    *,
    now: float,
    new_id: Callable[[], str],
    policy: ExpiryPolicy,
    namespace: Callable[[str | None, str], str],
) -> list[Entry]:
    """Domain entries for a batch, or InvalidInput listing every bad field of the batch.

    ``namespace(requested, field)`` resolves an event's namespace for the caller and
    raises when the caller may not write it.
    """
    errors: list[FieldError] = []
    entries: list[Entry] = []
    seen: set[tuple[str, str]] = set()
    for n, event in enumerate(events):
        where = f"events[{n}]"
        ns = namespace(event.namespace, f"{where}.namespace")
        if not event.text.strip():
            errors.append(FieldError(f"{where}.text", "must not be blank"))
        timestamp = now
        if event.timestamp is not None:
            parsed = parse_time(event.timestamp, f"{where}.timestamp", errors)
            timestamp = now if parsed is None else parsed
        if event.ttl_days is not None and event.tier != "C":
            errors.append(FieldError(f"{where}.ttl_days", "only tier C entries expire"))
        if event.variants and event.kind != "pattern":
            errors.append(FieldError(f"{where}.variants", "only entries of kind pattern have"))
        for key, value in event.metadata.items():
            if isinstance(value, str) and len(value) > 10_000:
                errors.append(FieldError(f"{where}.metadata.{key}", "longer than 10000 chars"))
        entry_id = event.id or new_id()
        if (ns, entry_id) in seen:
            errors.append(FieldError(f"{where}.id", f"{entry_id!r} appears twice in the batch"))
        seen.add((ns, entry_id))
        entries.append(
            Entry(
                id=entry_id,
                namespace=ns,
                tier=event.tier,
                text=event.text,
                timestamp=timestamp,
                speaker=event.speaker,
                role=event.role,
                chain_type=event.chain_type,
                tags=tuple(dict.fromkeys(event.tags)),
                expires_at=policy.expires_at(
                    event.tier, timestamp, event.ttl_days, event.chain_type
                ),
                metadata=dict(event.metadata),
                kind=event.kind,
                type=event.type,
                confidence=event.confidence,
                variants=tuple(event.variants),
                thread=event.thread,
            )
        )
    if errors:
        raise InvalidInput(errors)
    return entries


def to_query(request: wire.SearchRequest, *, namespace: str, now: float) -> SearchQuery:
    errors: list[FieldError] = []
    if not request.query.strip():
        errors.append(FieldError("query", "must not be blank"))
    since = parse_time(request.since, "since", errors) if request.since else None
    until = parse_time(request.until, "until", errors) if request.until else None
    if since is not None and until is not None and since > until:
        errors.append(FieldError("until", "is before since"))
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
    )
    return SearchQuery(
        request.query,
        filters,
        request.mode,
        request.limit,
        request.explain,
        request.rerank,
        min_score=request.min_score,
        relax=request.relax,
    )


def entry_out(entry: Entry, now: float) -> wire.EntryOut:
    return wire.EntryOut(**_entry_fields(entry, now))


def hit_out(result: SearchResult, now: float) -> wire.SearchHit:
    explain = None
    if result.explain is not None:
        explain = {
            name: wire.ListRank(rank=e.rank, score=round(e.score, 6))
            for name, e in result.explain.items()
        }
    place = _place(result.entry)
    if place:
        place["score_pct"] = round(result.score * 100)
    return wire.SearchHit(
        **place,
        **_entry_fields(result.entry, now),
        snippet=result.snippet,
        score=result.score,
        explain=explain,
    )


def retrieved_out(answered: Answered, now: float) -> wire.RetrievedEntry:
    parts = {name: round(value, 6) for name, value in answered.parts.items()}
    return wire.RetrievedEntry(
        **_place(answered.result.entry),
        **_entry_fields(answered.result.entry, now),
        snippet=answered.result.snippet,
        relevance_score=answered.relevance,
        score=answered.score,
        parts=wire.AnswerParts(**parts),
    )


def _place(entry: Entry) -> dict[str, Any]:
    """Where a chunk of a collection's file sits: its document path, title and lines."""
    meta = entry.metadata
    if "file" not in meta:
        return {}
    return {
        "file": meta["file"],
        "title": meta.get("title"),
        "lines": f"{meta.get('line_start')}-{meta.get('line_end')}",
    }


def _entry_fields(entry: Entry, now: float) -> dict:
    """Wire fields of an entry; an expired one shows as archived, as searches treat it."""
    return {
        "id": entry.id,
        "namespace": entry.namespace,
        "tier": entry.tier,
        "text": entry.text,
        "timestamp": format_time(entry.timestamp),
        "speaker": entry.speaker,
        "role": entry.role,
        "chain_type": entry.chain_type,
        "tags": list(entry.tags),
        "expires_at": format_time(entry.expires_at),
        "archived": entry.archived or not is_live(entry.expires_at, now),
        "metadata": dict(entry.metadata),
        "kind": entry.kind,
        "type": entry.type,
        "confidence": entry.confidence,
        "variants": list(entry.variants),
        "thread": entry.thread,
    }
