"""Scoring layers after fusion: reranking, tier and recency weights, diversity, and the final
order of the results."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from service.domain.entries import Entry
from service.domain.ports import Reranker
from service.domain.search.diversity import diversify
from service.domain.search.query import Candidate, ListExplain, SearchQuery, SearchResult
from service.domain.search.snippets import snippet

PASSAGE_CHARS = 600
"""The cross-encoder reads a window of the best chunk around the query's first term, about
this long (cost grows with length; the model's token limit cuts it further)."""


@dataclass(frozen=True)
class Weighting:
    """Scoring layers after fusion: a weight per tier (divided by the largest, so scores
    stay in [0, 1]); for tier C, decay exp(-age_days / c_recency_days). What a question asks
    for is weighed by the fusion itself (``service.domain.search.intent``)."""

    tier_weights: Mapping[str, float]
    c_recency_days: float

    def factors(self, entry: Entry, now: float) -> dict[str, float]:
        tiers, unknown = self._tiers
        found = {"tier": tiers.get(entry.tier, unknown)}
        if entry.tier == "C" and self.c_recency_days > 0:
            age_days = max(0.0, now - entry.timestamp) / 86_400
            found["recency"] = math.exp(-age_days / self.c_recency_days)
        return found

    @cached_property
    def _tiers(self) -> tuple[dict[str, float], float]:
        """Each tier's weight over the largest, and that of a tier given no weight."""
        top = max(self.tier_weights.values(), default=1.0) or 1.0
        return {tier: weight / top for tier, weight in self.tier_weights.items()}, 1.0 / top


def score(
    query: SearchQuery,
    candidates: list[Candidate],
    *,
    reranker: Reranker | None = None,
    rerank_candidates: int = 30,
    weighting: Weighting | None = None,
    mmr_lambda: float = 1.0,
) -> list[SearchResult]:
    """The results of the hydrated candidates (in fused order): reranked when a reranker is
    given, weighted, diversified, then cut at ``limit``, best first (``above`` applies the
    query's ``min_score``)."""
    if reranker is not None:
        candidates = rerank(query, candidates, reranker, rerank_candidates)
    if weighting is not None:
        candidates = weigh(candidates, weighting, query.filters.now)
    candidates = diversified(candidates, mmr_lambda)
    return [
        SearchResult(
            c.entry,
            snippet(c.passage, query.terms),
            round(c.score, 6),
            c.explain if query.explain else None,
            None if c.relevance is None else round(min(max(c.relevance, 0.0), 1.0), 6),
            c.passage,
        )
        for c in candidates[: query.limit]
    ]


def above(results: list[SearchResult], min_score: float) -> list[SearchResult]:
    """The results scoring at least ``min_score`` (the scores as shown, rounded)."""
    return [r for r in results if r.score >= min_score]


def rerank(
    query: SearchQuery, candidates: list[Candidate], reranker: Reranker, depth: int
) -> list[Candidate]:
    """Blend cross-encoder scores into the top ``depth`` candidates, trusting retrieval more
    at the top ranks so a reranker refines, but cannot wreck, a strong agreement."""
    head, tail = candidates[:depth], candidates[depth:]
    passages = [snippet(c.passage, query.terms, PASSAGE_CHARS) for c in head]
    scores = reranker.score(query.text, passages)
    for position, (candidate, score) in enumerate(zip(head, scores, strict=True), start=1):
        trust = retrieval_trust(position)
        candidate.explain["rerank"] = ListExplain(0, score)
        candidate.relevance = score
        candidate.score = trust * candidate.score + (1 - trust) * score
    head.sort(key=lambda c: -c.score)
    for rank, candidate in enumerate(head, start=1):
        candidate.explain["rerank"] = ListExplain(rank, candidate.explain["rerank"].score)
    # Whatever was not reranked stays below, its score capped under the last reranked.
    floor = head[-1].score if head else 1.0
    for candidate in tail:
        candidate.score = min(candidate.score, floor)
    return head + tail


def retrieval_trust(position: int) -> float:
    """Weight of the fused retrieval score against the rerank score at a fused position."""
    if position <= 3:
        return 0.75
    if position <= 10:
        return 0.6
    return 0.4


def weigh(candidates: list[Candidate], weighting: Weighting, now: float) -> list[Candidate]:
    """Scale scores by tier weight and, for tier C, recency; stable for equal scores."""
    for candidate in candidates:
        for name, value in weighting.factors(candidate.entry, now).items():
            candidate.explain[name] = ListExplain(0, value)
            candidate.score *= value
    candidates.sort(key=lambda c: -c.score)
    return candidates


def diversified(candidates: list[Candidate], mmr_lambda: float) -> list[Candidate]:
    """Reordered by maximal marginal relevance; a sunk candidate's factor is explained."""
    ranked: list[Candidate] = []
    for item, factor in diversify(candidates, mmr_lambda):
        assert isinstance(item, Candidate)
        if factor < 1:
            item.explain["mmr"] = ListExplain(0, factor)
            item.score *= factor
        ranked.append(item)
    return ranked
