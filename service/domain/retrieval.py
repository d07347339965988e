"""Hybrid search: BM25 and vector candidates fused by weighted RRF, hydrated from the ledger."""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from service.domain.cache import QueryCache
from service.domain.diversity import diversify
from service.domain.fusion import blend, fuse
from service.domain.models import (
    EMBEDDED_TIERS,
    TIERS,
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
from service.settings import SearchSettings

NO_EMBEDDER = "embedding model unavailable: vector search skipped, BM25 only"
QUERY_VECTORS = 256
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
        settings: SearchSettings,
        *,
        reranker: Reranker | None = None,
        weighting: Weighting | None = None,
        cache: QueryCache[SearchOutcome] | None = None,
    ) -> None:
        """``weighting``: the tier and recency factors scores are scaled by; None: none."""
        self.ledger = ledger
        self.vectors = vectors
        self.keywords = keywords
        self.embedder = embedder
        self.rrf_k = settings.rrf_k
        self.weights = settings.list_weights
        self.candidates = settings.candidates
        self.reranker = reranker
        self.rerank_candidates = settings.rerank_candidates
        self.rerank_default = settings.rerank == "on"
        self.weighting = weighting
        self.mmr_lambda = settings.mmr_lambda
        self.fusion = settings.fusion
        """``score`` (``blend``) or ``rrf`` (``fuse``)."""
        self.keyword_share = settings.keyword_share
        self.cache = cache
        self._query_vectors: dict[str, tuple[float, ...]] = {}
        self._lock = threading.Lock()
        self.reranker_problem: str | None = None
        """Why no reranker is loaded, when one is wanted."""

    def search(self, query: SearchQuery) -> SearchOutcome:
        """Results of the query; a repeated query is answered from the cache until its
        namespace changes (or the cache's time runs out)."""
        if self.cache is None:
            return self._relaxed(query)
        namespace = query.filters.namespace
        key = replace(query, filters=replace(query.filters, now=0.0))
        generation = self.cache.generation(namespace)
        cached = self.cache.get(namespace, key)
        if cached is not None:
            return cached
        outcome = self._relaxed(query)
        if not outcome.degraded:
            self.cache.put(namespace, key, outcome, generation)
        return outcome

    def _relaxed(self, query: SearchQuery) -> SearchOutcome:
        outcome = self._search(query)
        if outcome.results or not query.relax:
            return outcome
        wider = replace(
            query, filters=replace(query.filters, tiers=TIERS), min_score=0.0, relax=False
        )
        if wider == replace(query, relax=False):
            return outcome  # nothing to relax
        retry = self._search(wider)
        return replace(retry, relaxed=True)

    def _search(self, query: SearchQuery) -> SearchOutcome:
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
        vector: tuple[float, ...] | None = None
        if mode in ("vector", "hybrid") and vector_tiers and self.embedder is not None:
            vector = self.embed_query(query.text)
            lists["vector"] = self._vector_hits(vector, filters, vector_tiers, depth)
        for hits in lists.values():
            # Equal scores are ordered by key, so a ranking never depends on storage order.
            hits.sort(key=lambda h: (-round(h.score, 6), h.key))
        rerank = self.rerank_default if query.rerank is None else query.rerank
        if rerank and self.reranker is None:
            problem = self.reranker_problem
            degraded.append(f"{NO_RERANKER}: {problem}" if problem else NO_RERANKER)
            rerank = False
        results = self._rank(query, lists, vector, rerank)
        return SearchOutcome(results, mode, degraded)

    def embed_query(self, text: str) -> tuple[float, ...]:
        """The query's vector; the last few hundred are kept, as agents repeat questions."""
        assert self.embedder is not None
        with self._lock:
            vector = self._query_vectors.pop(text, None)
        if vector is None:
            vector = self.embedder.embed([text])[0]
        with self._lock:
            self._query_vectors[text] = vector
            while len(self._query_vectors) > QUERY_VECTORS:
                del self._query_vectors[next(iter(self._query_vectors))]
        return vector

    def _vector_hits(
        self, vector: tuple[float, ...], filters: Filters, tiers: list[Tier], depth: int
    ) -> list[Hit]:
        hits = [h for tier in tiers for h in self.vectors.search(tier, vector, filters, depth)]
        hits.sort(key=lambda h: (-round(h.score, 6), h.key))
        return hits[:depth]

    def _rank(
        self,
        query: SearchQuery,
        lists: dict[str, list[Hit]],
        vector: tuple[float, ...] | None,
        rerank: bool,
    ) -> list[SearchResult]:
        keys = {name: [h.key for h in hits] for name, hits in lists.items()}
        by_list = {name: {h.key: h for h in hits} for name, hits in lists.items()}
        # Hydrate spare candidates: an entry deleted meanwhile must not shorten the page.
        wanted = max(query.limit, self.rerank_candidates if rerank else 0) + 10
        if self.fusion == "rrf":
            top = fuse(keys, self.weights, self.rrf_k)[:wanted]
            stored = self.ledger.get([f.key for f in top])
        else:
            bound = self.keywords.score_bound(query.text) if "bm25" in lists else 0.0
            keyword = {h.key: h.score / bound if bound > 0 else 0.0 for h in lists.get("bm25", [])}
            cosines = {key: hit.score for key, hit in by_list.get("vector", {}).items()}
            if len(lists) == 2 and vector is not None:
                # What BM25 alone found needs its cosine, from the ledger's vectors.
                alone = [key for key in keys["bm25"] if key not in cosines]
                cosines.update(best_cosines(vector, self.ledger.vectors(alone)))
            top = blend(keys, keyword, cosines, self.keyword_share)[:wanted]
            stored = self.ledger.get([f.key for f in top])
        terms = query_terms(query.text)
        candidates: list[Candidate] = []
        for item in top:
            found = stored.get(item.key)
            # An entry deleted between ranking and hydration, or (defensively) one of
            # another namespace, is never shown.
            if found is None or found.entry.namespace != query.filters.namespace:
                continue
            if expired(found.entry, query.filters):  # a vector not yet pruned by the job
                continue
            texts = [c.text for c in found.chunks] or [found.entry.text]
            vector_hit = by_list.get("vector", {}).get(item.key)
            chunk = vector_hit.chunk if vector_hit else best_chunk(texts, terms)
            chunk = min(chunk, len(texts) - 1)
            explain: dict[str, ListExplain] = {
                name: ListExplain(rank, by_list[name][item.key].score)
                for name, rank in item.ranks.items()
            }
            relevance: float | None = item.score  # score fusion: an absolute match score
            if self.fusion == "rrf":  # rank fusion is relative: the cosine says more
                relevance = vector_hit.score if vector_hit else None
                if relevance is None and vector is not None and found.has_vectors:
                    chunks = {item.key: [c.vector or () for c in found.chunks]}
                    relevance = best_cosines(vector, chunks).get(item.key)
            candidates.append(Candidate(found.entry, texts[chunk], item.score, explain, relevance))
        if rerank:
            candidates = self._rerank(query.text, candidates)
        if self.weighting is not None:
            candidates = self._weigh(candidates, query.filters.now)
        candidates = self._diversify(candidates)
        return [
            SearchResult(
                c.entry,
                snippet(c.passage, terms),
                round(c.score, 6),
                c.explain if query.explain else None,
                None if c.relevance is None else round(min(max(c.relevance, 0.0), 1.0), 6),
                c.passage,
            )
            for c in candidates
            if round(c.score, 6) >= query.min_score
        ][: query.limit]

    def _diversify(self, candidates: list[Candidate]) -> list[Candidate]:
        ranked: list[Candidate] = []
        for item, factor in diversify(candidates, self.mmr_lambda):
            assert isinstance(item, Candidate)
            if factor < 1:
                item.explain["mmr"] = ListExplain(0, factor)
                item.score *= factor
            ranked.append(item)
        return ranked

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
        terms = query_terms(text)
        passages = [snippet(c.passage, terms, PASSAGE_CHARS) for c in head]
        scores = self.reranker.score(text, passages)
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


@dataclass(frozen=True)
class Weighting:
    """Scoring layers after fusion: a weight per tier (divided by the largest, so scores
    stay in [0, 1]) and, for tier C, decay exp(-age_days / c_recency_days)."""

    tier_weights: Mapping[str, float]
    c_recency_days: float

    def factors(self, entry: Entry, now: float) -> dict[str, float]:
        top = max(self.tier_weights.values(), default=1.0) or 1.0
        found = {"tier": self.tier_weights.get(entry.tier, 1.0) / top}
        if entry.tier == "C" and self.c_recency_days > 0:
            age_days = max(0.0, now - entry.timestamp) / 86_400
            found["recency"] = math.exp(-age_days / self.c_recency_days)
        return found


PASSAGE_CHARS = 600
"""The cross-encoder reads a window of the best chunk around the query's first term, about
this long (cost grows with length; the model's token limit cuts it further)."""


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
    relevance: float | None = None


def expired(entry: Entry, filters: Filters) -> bool:
    """Past its lifetime, in a search of live entries only."""
    return (
        not filters.include_archived
        and entry.expires_at is not None
        and entry.expires_at <= filters.now
    )


def best_cosines(
    vector: Sequence[float], chunk_vectors: Mapping[str, Sequence[Sequence[float]]]
) -> dict[str, float]:
    """Each entry's best chunk cosine with the query (unit vectors; other sizes skipped)."""
    keys = [k for k, vs in chunk_vectors.items() for v in vs if len(v) == len(vector)]
    if not keys:
        return {}
    matrix = np.asarray(
        [v for vs in chunk_vectors.values() for v in vs if len(v) == len(vector)],
        dtype=np.float32,
    )
    best: dict[str, float] = {}
    scores = (matrix @ np.asarray(vector, dtype=np.float32)).tolist()
    for key, score in zip(keys, scores, strict=True):
        if key not in best or score > best[key]:
            best[key] = score
    return best


def cosine(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Cosine of two unit vectors; None when either is missing."""
    if not a or len(a) != len(b):
        return None
    return float(sum(x * y for x, y in zip(a, b, strict=True)))
