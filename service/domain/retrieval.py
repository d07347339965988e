"""Hybrid search: BM25 and vector candidates fused by weighted RRF, hydrated from the ledger."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from service.domain.fusion import fuse
from service.domain.models import (
    EMBEDDED_TIERS,
    Entry,
    Filters,
    Hit,
    ListExplain,
    Mode,
    SearchOutcome,
    SearchQuery,
    SearchResult,
    Tier,
)
from service.domain.ports import Embedder, KeywordStore, Ledger, Reranker, VectorStore
from service.domain.snippets import best_chunk, query_terms, snippet
from service.errors import InvalidInput

NO_EMBEDDER = "embedding model unavailable: vector search skipped, BM25 only"
NO_RERANKER = "reranker unavailable: results are not reranked"


def resolve_mode(mode: Mode, filters: Filters) -> Mode:
    """``auto`` is BM25 when only tier E is searched (nothing there is embedded), else hybrid."""
    if mode != "auto":
        return mode
    return "hybrid" if any(t in EMBEDDED_TIERS for t in filters.tiers) else "bm25"


class Retriever:
    def __init__(
        self,
        ledger: Ledger,
        vectors: VectorStore,
        keywords: KeywordStore,
        embedder: Embedder | None,
        *,
        rrf_k: float = 10.0,
        weights: Mapping[str, float] | None = None,
        candidates: int = 50,
        reranker: Reranker | None = None,
        rerank_candidates: int = 30,
        rerank_default: bool = False,
        weighting: Weighting | None = None,
    ) -> None:
        self.ledger = ledger
        self.vectors = vectors
        self.keywords = keywords
        self.embedder = embedder
        self.rrf_k = rrf_k
        self.weights = dict(weights or {"bm25": 1.0, "vector": 1.0})
        self.candidates = candidates
        self.reranker = reranker
        self.rerank_candidates = rerank_candidates
        self.rerank_default = rerank_default
        self.weighting = weighting
        self.reranker_problem: str | None = None
        """Why no reranker is loaded, when one is wanted."""

    def search(self, query: SearchQuery) -> SearchOutcome:
        filters = query.filters
        mode = resolve_mode(query.mode, filters)
        vector_tiers = [t for t in filters.tiers if t in EMBEDDED_TIERS]
        if mode == "vector" and not vector_tiers:
            raise InvalidInput.one("tiers", "vector search covers tiers A and C only")
        degraded: list[str] = []
        if mode in ("vector", "hybrid") and vector_tiers and self.embedder is None:
            degraded.append(NO_EMBEDDER)
            mode = "bm25"
        depth = max(query.limit * 3, self.candidates)
        lists: dict[str, list[Hit]] = {}
        if mode in ("bm25", "hybrid"):
            lists["bm25"] = self.keywords.search(query.text, filters, depth)
        if mode in ("vector", "hybrid") and vector_tiers and self.embedder is not None:
            lists["vector"] = self._vector_hits(query.text, filters, vector_tiers, depth)
        for hits in lists.values():
            # Equal scores are ordered by key, so a ranking never depends on storage order.
            hits.sort(key=lambda h: (-round(h.score, 6), h.key))
        rerank = self.rerank_default if query.rerank is None else query.rerank
        if rerank and self.reranker is None:
            problem = self.reranker_problem
            degraded.append(f"{NO_RERANKER}: {problem}" if problem else NO_RERANKER)
            rerank = False
        results = self._rank(query, lists, rerank)
        return SearchOutcome(results, mode, degraded)

    def _vector_hits(self, text: str, filters: Filters, tiers: list[Tier], depth: int) -> list[Hit]:
        assert self.embedder is not None
        vector = self.embedder.embed([text])[0]
        hits = [h for tier in tiers for h in self.vectors.search(tier, vector, filters, depth)]
        hits.sort(key=lambda h: (-round(h.score, 6), h.key))
        return hits[:depth]

    def _rank(
        self, query: SearchQuery, lists: dict[str, list[Hit]], rerank: bool
    ) -> list[SearchResult]:
        fused = fuse(
            {name: [h.key for h in hits] for name, hits in lists.items()}, self.weights, self.rrf_k
        )
        by_list = {name: {h.key: h for h in hits} for name, hits in lists.items()}
        # Hydrate spare candidates: an entry deleted meanwhile must not shorten the page.
        wanted = max(query.limit, self.rerank_candidates if rerank else 0) + 10
        top = fused[:wanted]
        stored = self.ledger.get([f.key for f in top])
        terms = query_terms(query.text)
        candidates: list[Candidate] = []
        for item in top:
            found = stored.get(item.key)
            # An entry deleted between ranking and hydration, or (defensively) one of
            # another namespace, is never shown.
            if found is None or found.entry.namespace != query.filters.namespace:
                continue
            texts = [c.text for c in found.chunks] or [found.entry.text]
            vector_hit = by_list.get("vector", {}).get(item.key)
            chunk = vector_hit.chunk if vector_hit else best_chunk(texts, terms)
            explain: dict[str, ListExplain] = {
                name: ListExplain(rank, by_list[name][item.key].score)
                for name, rank in item.ranks.items()
            }
            candidates.append(
                Candidate(found.entry, texts[min(chunk, len(texts) - 1)], item.score, explain)
            )
        if rerank:
            candidates = self._rerank(query.text, candidates)
        if self.weighting is not None:
            candidates = self._weigh(candidates, query.filters.now)
        return [
            SearchResult(
                c.entry,
                snippet(c.passage, terms),
                round(c.score, 6),
                c.explain if query.explain else None,
            )
            for c in candidates[: query.limit]
        ]

    def _weigh(self, candidates: list[Candidate], now: float) -> list[Candidate]:
        """Scale scores by tier weight and, for tier C, recency; stable for equal scores."""
        assert self.weighting is not None
        for candidate in candidates:
            factors = self.weighting.factors(candidate.entry, now)
            for name, value in factors.items():
                candidate.explain[name] = ListExplain(0, value)
                candidate.score *= value
        candidates.sort(key=lambda c: -c.score)
        return candidates

    def _rerank(self, text: str, candidates: list[Candidate]) -> list[Candidate]:
        """Blend cross-encoder scores into the top candidates, trusting retrieval more at
        the top ranks so a reranker refines, but cannot wreck, a strong agreement."""
        assert self.reranker is not None
        head, tail = candidates[: self.rerank_candidates], candidates[self.rerank_candidates :]
        scores = self.reranker.score(text, [c.passage[:PASSAGE_CHARS] for c in head])
        for position, (candidate, score) in enumerate(zip(head, scores, strict=True), start=1):
            trust = retrieval_trust(position)
            candidate.explain["rerank"] = ListExplain(0, score)
            candidate.score = trust * candidate.score + (1 - trust) * score
        head.sort(key=lambda c: -c.score)
        for rank, candidate in enumerate(head, start=1):
            candidate.explain["rerank"] = ListExplain(rank, candidate.explain["rerank"].score)
        # Whatever was not reranked stays below, its score capped under the last reranked.
        floor = head[-1].score if head else 1.0
        for candidate in tail:
            candidate.score = min(candidate.score, floor)
        return head + tail


@dataclass(frozen=True)
class Weighting:
    """Scoring layers after fusion: a weight per tier (divided by the largest, so scores
    stay in [0, 1]) and, for tier C, decay exp(-age_days / c_recency_days)."""

    tier_weights: Mapping[str, float]
    c_recency_days: float = 3.5

    def factors(self, entry: Entry, now: float) -> dict[str, float]:
        top = max(self.tier_weights.values(), default=1.0) or 1.0
        found = {"tier": self.tier_weights.get(entry.tier, 1.0) / top}
        if entry.tier == "C" and self.c_recency_days > 0:
            age_days = max(0.0, now - entry.timestamp) / 86_400
            found["recency"] = math.exp(-age_days / self.c_recency_days)
        return found


PASSAGE_CHARS = 1200
"""Passages given to the cross-encoder are the best chunk, trimmed: cost grows with length."""


def retrieval_trust(position: int) -> float:
    """Weight of the fused retrieval score against the rerank score at a fused position."""
    if position <= 3:
        return 0.75
    if position <= 10:
        return 0.6
    return 0.4


@dataclass
class Candidate:
    entry: Entry
    passage: str
    score: float
    explain: dict[str, ListExplain]
