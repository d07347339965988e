"""Fused candidates loaded from the ledger: each one's entry, best chunk and relevance."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from service.domain.entries import Entry
from service.domain.memory.texts import found_by_passage
from service.domain.model import Filters
from service.domain.ports import Passages, Relations
from service.domain.search.as_of import as_it_was
from service.domain.search.fusion import FusedHit
from service.domain.search.query import Candidate, SearchQuery
from service.domain.search.snippets import best_chunk


def hydrate(
    ledger: Passages,
    fused: Sequence[FusedHit],
    query: SearchQuery,
    history: Relations | None = None,
    superseded: list[Entry] | None = None,
) -> tuple[list[FusedHit], list[Candidate]]:
    """The fused candidates the search may show, and their current entries (with
    ``as_of``: as they were then, read from ``history``), in fused order, each with the
    chunk that matched (the vector store's, else, for an entry found by passage, the
    keyword store's, else the one holding most query terms), without a relevance yet: the
    fusion measures it. ``superseded`` is given the candidates left out as superseded, in
    fused order."""
    found = ledger.passages([f.key for f in fused])
    moment = query.filters.as_of
    if moment is not None and history is not None:
        found = then(found, history, moment)
    # An entry deleted between ranking and hydration is not found, and never shown.
    kept = [f for f in fused if f.key in found and shown(found[f.key][0], query.filters)]
    if superseded is not None and not query.filters.include_superseded:
        # Left out for being superseded alone: shown were it not (not archived, say).
        every = replace(query.filters, include_superseded=True)
        superseded.extend(
            entry
            for f in fused
            if f.key in found
            and (entry := found[f.key][0]).superseded_by is not None
            and shown(entry, every)
        )
    replaced = replaced_matches((found[f.key][0], f.features) for f in fused if f.key in found)
    candidates: list[Candidate] = []
    for item in kept:
        entry, chunks = found[item.key]
        texts = chunks or (entry.text,)
        if item.vector_hit:
            chunk = item.vector_hit.chunk
        elif item.keyword_hit and found_by_passage(entry) and len(texts) > 1:
            chunk = item.keyword_hit.chunk  # the passage BM25 scored
        else:
            chunk = best_chunk(texts, query.terms)
        chunk = min(chunk, len(texts) - 1)
        candidates.append(
            Candidate(
                entry,
                texts[chunk],
                item.score,
                dict(item.explain),
                None,
                item.features,
                replaced.get(entry.id, 0.0),
            )
        )
    return kept, candidates


def replaced_matches(found: Iterable[tuple[Entry, Mapping[str, float] | None]]) -> dict[str, float]:
    """By id of the entry that replaced them, how well the superseded candidates of
    ``found`` (each entry with what the fusion knew of it) matched the question: the best of
    their ``cosine_top`` and ``keyword_top`` (a learned fusion's list features; none for
    another fusion). A question worded as the replaced decision was ("sending submissions
    through GOV.UK Notify") is answered by the one that replaced it ("Use Amazon SES"),
    which a search shows in its place."""
    matches: dict[str, float] = {}
    for entry, features in found:
        successor = entry.superseded_by
        if successor is None or not features:
            continue
        match = max(features.get("cosine_top", 0.0), features.get("keyword_top", 0.0))
        matches[successor] = max(matches.get(successor, 0.0), match)
    return matches


def then(
    found: dict[str, tuple[Entry, tuple[str, ...]]], history: Relations, moment: float
) -> dict[str, tuple[Entry, tuple[str, ...]]]:
    """The entries of ``found`` as memory held them at ``moment``; those not recorded yet
    left out."""
    events = history.histories(list(found))
    kept = {}
    for key, (entry, chunks) in found.items():
        was = as_it_was(entry, events.get(key, []), moment)
        if was is not None:
            kept[key] = (was, chunks)
    return kept


def shown(entry: Entry, filters: Filters) -> bool:
    """Whether a search may show the entry: one of another namespace never (a defensive
    check), nor one expired whose vector the job has not pruned yet, nor one superseded
    unless asked. With ``as_of`` (the entry as it was then), the tiers and archived state
    are checked here: the stores were searched over every tier, archived or not."""
    if entry.namespace != filters.namespace:
        return False
    if entry.superseded_by is not None and not filters.include_superseded:
        return False
    if filters.as_of is not None:
        return entry.tier in filters.tiers and (filters.include_archived or not entry.archived)
    return not expired(entry, filters)


def expired(entry: Entry, filters: Filters) -> bool:
    """Past its lifetime, in a search of live entries only."""
    return (
        not filters.include_archived
        and entry.expires_at is not None
        and entry.expires_at <= filters.now
    )
