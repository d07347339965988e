"""Searches as the wire types of ``schemas.wire.search``."""

from __future__ import annotations

from schemas import wire
from service.application.recall import Recall
from service.application.search import Searched
from service.domain.search.query import SearchResult
from service.domain.search.recall import Recalled
from service.present.events import entry_fields, file_fields


def search_out(searched: Searched) -> wire.SearchResponse:
    outcome, recall = searched.outcome, searched.recall
    local = [hit_out(r, searched.now, searched.text_chars) for r in outcome.results]
    recalled = recall.hits if recall is not None else []
    return wire.SearchResponse(
        results=[*local, *(recalled_out(r, searched.now, searched.text_chars) for r in recalled)],
        mode=outcome.mode,
        took_ms=searched.took_ms,
        degraded=searched.degraded,
        relaxed=outcome.relaxed,
        superseded=[wire.LeftOut(e.id, e.superseded_by or "") for e in outcome.superseded],
        upstream=asked_out(recall),
        dropped=outcome.dropped,
        keywords=None
        if outcome.keywords is None
        else wire.KeywordStats(outcome.keywords.documents, dict(outcome.keywords.frequencies)),
    )


def recalled_out(hit: Recalled, now: float, text_chars: int) -> wire.SearchHit:
    """An upstream's hit, marked as such, with the upstream's id and text as it gave them."""
    return wire.SearchHit(
        **entry_fields(hit.entry, now, text_chars),
        snippet=hit.snippet,
        score=hit.score,
        source="upstream",
        upstream=upstream_ref(hit),
    )


def upstream_ref(hit: Recalled) -> wire.UpstreamRef:
    return wire.UpstreamRef(name=hit.source, namespace=hit.namespace, id=hit.entry.id)


def asked_out(recall: Recall | None) -> wire.UpstreamAsked | None:
    if recall is None:
        return None
    r = recall.report
    return wire.UpstreamAsked(
        name=r.name,
        outcome=r.outcome,
        results=len(r.hits),
        attempts=r.attempts,
        took_ms=r.took_ms,
        kept=recall.kept,
        refused=len(recall.refused),
        error=r.error,
    )


def hit_out(result: SearchResult, now: float, text_chars: int) -> wire.SearchHit:
    explain = None
    if result.explain is not None:
        explain = {
            name: wire.ListRank(rank=e.rank, score=round(e.score, 6))
            for name, e in result.explain.items()
        }
    place = file_fields(result.entry)
    if place:
        place["score_pct"] = round(result.score * 100)
    return wire.SearchHit(
        **place,
        **entry_fields(result.entry, now, text_chars),
        snippet=result.snippet,
        score=result.score,
        explain=explain,
    )
