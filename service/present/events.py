"""Writes, entries and their histories as the wire types of ``schemas.wire.events``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schemas import wire
from service.application.chains import Link
from service.application.events import EntryHistory, Found
from service.domain.aging.tiers import is_live
from service.domain.entries import DIGEST, Entry
from service.domain.memory.outcomes import WriteOutcome
from service.present.times import format_time


def written(outcome: WriteOutcome, supersedes: Sequence[Sequence[str]] = ()) -> wire.EventsResponse:
    """The answer to a write; ``supersedes``: what each event asked to replace, in order."""
    replaced = list(supersedes)
    return wire.EventsResponse(
        ids=outcome.ids,
        embedded=outcome.embedded,
        indexed=outcome.indexed,
        written=[
            wire.WrittenEntry(
                id=entry_id,
                duplicate_of=outcome.duplicate_of.get(n),
                supersedes=list(dict.fromkeys(replaced[n])) if n < len(replaced) else [],
                similar=[
                    wire.SimilarEntry(s.id, s.tier, s.similarity)
                    for s in outcome.similar.get(n, [])
                ],
            )
            for n, entry_id in enumerate(outcome.ids)
        ],
    )


def entry_out(found: Found) -> wire.EntryDetail:
    return wire.EntryDetail(
        **entry_fields(found.entry, found.now),
        supersedes=[replacement_out(link) for link in found.chain.supersedes],
        replaced_by=[replacement_out(link) for link in found.chain.superseded_by],
    )


def replacement_out(link: Link, *, text: bool = False) -> wire.Replacement:
    return wire.Replacement(
        id=link.id,
        at=format_time(link.at) or "",
        actor=link.actor,
        text=link.text if text else None,
    )


def history_out(history: EntryHistory) -> wire.HistoryResponse:
    return wire.HistoryResponse(
        id=history.id,
        namespace=history.namespace,
        history=[
            wire.HistoryItem(
                at=format_time(e.at) or "", action=e.action, actor=e.actor, detail=e.detail
            )
            for e in history.events
        ],
    )


def file_fields(entry: Entry) -> dict[str, Any]:
    """Where a chunk of a collection's file sits: its document path, title and lines."""
    meta = entry.metadata
    if "file" not in meta:
        return {}
    return {
        "file": meta["file"],
        "title": meta.get("title"),
        "lines": f"{meta.get('line_start')}-{meta.get('line_end')}",
    }


def entry_fields(entry: Entry, now: float, text_chars: int | None = None) -> dict[str, Any]:
    """Wire fields of an entry; an expired one shows as archived, as searches treat it, and
    so does a digest, which stands for archived entries (and is found by default). With
    ``text_chars``, the text is cut there and ``truncated`` says so."""
    cut = text_chars is not None and len(entry.text) > text_chars
    fields = {"truncated": True} if cut else {}
    return fields | {
        "id": entry.id,
        "namespace": entry.namespace,
        "tier": entry.tier,
        "text": entry.text[:text_chars] if cut else entry.text,
        "timestamp": format_time(entry.timestamp),
        "speaker": entry.speaker,
        "role": entry.role,
        "chain_type": entry.chain_type,
        "tags": list(entry.tags),
        "expires_at": format_time(entry.expires_at),
        "archived": entry.archived or not is_live(entry.expires_at, now) or entry.kind == DIGEST,
        "metadata": dict(entry.metadata),
        "kind": entry.kind,
        "type": entry.type,
        "confidence": entry.confidence,
        "variants": list(entry.variants),
        "thread": entry.thread,
        "superseded_by": entry.superseded_by,
    }
