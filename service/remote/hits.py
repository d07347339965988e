"""What the framework searchers share (``langchain.py``, ``llamaindex.py``): the search a
searcher sends for its settings, and the metadata a search hit carries into a framework's
document or node."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas import wire

FILTERS = frozenset(wire.SearchRequest.__struct_fields__) - {
    "query",
    "namespace",
    "limit",
    "fields",
}
"""The fields of ``POST /v1/search`` a searcher's ``filters`` may set (``tiers``, ``mode``,
``speaker``, ``chain_type``, ``tags``, ``since``, ``until``, ``include_archived``, ``kind``,
``min_score``, ``rerank``, ...): a framework's document is made of whole hits, so not
``fields``."""


def checked_filters(filters: Mapping[str, Any]) -> dict[str, Any]:
    """``filters`` if each names a search field; else a ValueError naming the others."""
    if unknown := sorted(set(filters) - FILTERS):
        raise ValueError(
            f"unknown search filters {unknown}; a filter is one of {sorted(FILTERS)}"
            " (namespace and limit are settings of their own)"
        )
    return dict(filters)


def search_options(namespace: str | None, limit: int, filters: Mapping[str, Any]) -> dict[str, Any]:
    """The body of ``POST /v1/search`` but its query."""
    return {**checked_filters(filters), "namespace": namespace, "limit": limit}


def metadata(hit: wire.SearchHit) -> dict[str, Any]:
    """strata's metadata of a hit: its id, namespace, tier, score and the fields it has; for
    a note of a collection, its file as ``source`` and its lines (``12-20``) as
    ``start_line`` and ``end_line`` too."""
    found: dict[str, Any] = {
        "id": hit.id,
        "namespace": hit.namespace,
        "tier": hit.tier,
        "score": hit.score,
        "timestamp": hit.timestamp,
        "kind": hit.kind,
        "archived": hit.archived,
        "tags": list(hit.tags or ()),
        "snippet": hit.snippet,
        "truncated": hit.truncated,
    }
    fields = {
        "speaker": hit.speaker,
        "role": hit.role,
        "chain_type": hit.chain_type,
        "thread": hit.thread,
        "type": hit.type,
        "confidence": hit.confidence,
        "expires_at": hit.expires_at,
        "title": hit.title,
    }
    found.update({name: value for name, value in fields.items() if value is not None})
    if hit.metadata:
        found["metadata"] = dict(hit.metadata)
    if hit.file is not None:
        found.update(source=hit.file, file=hit.file)
    if hit.lines is not None:
        first, _, last = hit.lines.partition("-")
        found.update(lines=hit.lines, start_line=int(first), end_line=int(last or first))
    return found
