"""Fused candidates loaded from the ledger: each one's entry, best chunk and relevance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.domain.fusion import FusedHit, Fusion
from service.domain.models import Entry, Filters, ListExplain, SearchQuery
from service.domain.ports import Ledger
from service.domain.snippets import best_chunk, query_terms


@dataclass
class Candidate:
    """A result in the making: the scoring layers scale its score and add to its explain."""

    entry: Entry
    passage: str
    """The chunk that matched best."""
    score: float
    explain: dict[str, ListExplain]
    relevance: float | None = None


def hydrate(
    ledger: Ledger,
    fused: Sequence[FusedHit],
    query: SearchQuery,
    vector: Sequence[float] | None,
    fusion: Fusion,
) -> list[Candidate]:
    """The fused candidates' current entries, in fused order, each with the chunk that
    matched (the vector store's, else the one holding most query terms)."""
    stored = ledger.get([f.key for f in fused])
    terms = query_terms(query.text)
    candidates: list[Candidate] = []
    for item in fused:
        found = stored.get(item.key)
        # An entry deleted between ranking and hydration, or (defensively) one of
        # another namespace, is never shown.
        if found is None or found.entry.namespace != query.filters.namespace:
            continue
        if expired(found.entry, query.filters):  # a vector not yet pruned by the job
            continue
        texts = [c.text for c in found.chunks] or [found.entry.text]
        chunk = item.vector_hit.chunk if item.vector_hit else best_chunk(texts, terms)
        chunk = min(chunk, len(texts) - 1)
        relevance = fusion.relevance(item, found, vector)
        candidates.append(
            Candidate(found.entry, texts[chunk], item.score, dict(item.explain), relevance)
        )
    return candidates


def expired(entry: Entry, filters: Filters) -> bool:
    """Past its lifetime, in a search of live entries only."""
    return (
        not filters.include_archived
        and entry.expires_at is not None
        and entry.expires_at <= filters.now
    )
