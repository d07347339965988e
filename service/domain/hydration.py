"""Fused candidates loaded from the ledger: each one's entry, best chunk and relevance."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from service.domain.fusion import FusedHit, Fusion
from service.domain.models import Entry, Filters, ListExplain, SearchQuery
from service.domain.ports import Passages
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
    features: Mapping[str, float] | None = None
    """What the fusion knew of it before it was loaded (a learned fusion's list features)."""


def hydrate(
    ledger: Passages,
    fused: Sequence[FusedHit],
    query: SearchQuery,
    vector: Sequence[float] | None,
    fusion: Fusion,
) -> list[Candidate]:
    """The fused candidates' current entries, in fused order, each with the chunk that
    matched (the vector store's, else the one holding most query terms)."""
    found = ledger.passages([f.key for f in fused])
    # An entry deleted between ranking and hydration is not found, and never shown.
    kept = [f for f in fused if f.key in found and shown(found[f.key][0], query.filters)]
    relevances = fusion.relevances(kept, vector)
    terms = query_terms(query.text)
    candidates: list[Candidate] = []
    for item in kept:
        entry, chunks = found[item.key]
        texts = chunks or (entry.text,)
        chunk = item.vector_hit.chunk if item.vector_hit else best_chunk(texts, terms)
        chunk = min(chunk, len(texts) - 1)
        candidates.append(
            Candidate(
                entry,
                texts[chunk],
                item.score,
                dict(item.explain),
                relevances[item.key],
                item.features,
            )
        )
    return candidates


def shown(entry: Entry, filters: Filters) -> bool:
    """Whether a search may show the entry: one of another namespace never (a defensive
    check), nor one expired whose vector the job has not pruned yet."""
    return entry.namespace == filters.namespace and not expired(entry, filters)


def expired(entry: Entry, filters: Filters) -> bool:
    """Past its lifetime, in a search of live entries only."""
    return (
        not filters.include_archived
        and entry.expires_at is not None
        and entry.expires_at <= filters.now
    )
