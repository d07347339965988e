"""Searches as the wire types of ``schemas.wire.search``."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from msgspec import structs

from schemas import wire
from service.application.recall import Recall
from service.application.search import Searched
from service.domain.answers.tuning import Tuning
from service.domain.recall import Recalled
from service.domain.search.query import SearchResult
from service.lib.fields import fields_of
from service.present.events import entry_fields, file_fields

BESIDE_ENTRY = frozenset({"snippet", "explain", "source", "upstream"})
"""The fields a hit of this memory shows without reading its entry's."""


def search_out(searched: Searched, fields: Collection[str] | None = None) -> wire.SearchResponse:
    """The search's answer; with ``fields``, each hit with those alone besides its id and
    score."""
    outcome, recall = searched.outcome, searched.recall
    now, chars = searched.now, searched.text_chars
    hits = [local_out(r, now, chars, fields) for r in outcome.results]
    for hit in recall.hits if recall is not None else []:
        hits.append(cut(structs.asdict(recalled_out(hit, now, chars)), fields))
    return wire.SearchResponse(
        results=hits,
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
        calibration=calibration_out(searched.tuning) if searched.tuning is not None else None,
    )


def calibration_out(tuning: Tuning) -> wire.CalibrationUsed:
    """Which calibration gave a request its threshold and floor."""
    return wire.CalibrationUsed(tuning.scope, tuning.version, tuning.threshold, tuning.floor)


def cut(found: dict[str, Any], fields: Collection[str] | None) -> wire.SearchHit:
    """A hit of ``found``'s id, score and ``fields`` (all of it when None)."""
    if fields is not None:
        found = {name: found[name] for name in ("id", "score", *fields) if name in found}
    return wire.SearchHit(**found)


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
        **fields_of(r, "name", "outcome", "attempts", "took_ms", "error"),
        results=len(r.hits),
        kept=recall.kept,
        refused=len(recall.refused),
    )


def local_out(
    result: SearchResult, now: float, text_chars: int, fields: Collection[str] | None
) -> wire.SearchHit:
    """A hit of this memory's; its entry's fields read only when ``fields`` asks for one."""
    if fields is not None and BESIDE_ENTRY.issuperset(fields):
        found = {"id": result.entry.id, "score": result.score, "snippet": result.snippet}
        return cut(found | {"explain": explained(result)}, fields)
    return cut(hit_fields(result, now, text_chars), fields)


def explained(result: SearchResult) -> dict[str, wire.ListRank] | None:
    if result.explain is None:
        return None
    return {
        name: wire.ListRank(rank=e.rank, score=round(e.score, 6))
        for name, e in result.explain.items()
    }


def hit_fields(result: SearchResult, now: float, text_chars: int) -> dict[str, Any]:
    """Every field of the hit ``result`` shows."""
    place = file_fields(result.entry)
    if place:
        place["score_pct"] = round(result.score * 100)
    return {
        **place,
        **entry_fields(result.entry, now, text_chars),
        "snippet": result.snippet,
        "score": result.score,
        "explain": explained(result),
    }
