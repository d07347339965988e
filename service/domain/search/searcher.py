"""Hybrid search: BM25 and vector candidates, fused, hydrated from the ledger and scored.

The steps live in their own modules: ``fusion`` (the lists into one ranking), ``hydration``
(the candidates' entries from the ledger) and ``ranking`` (reranking, weights, diversity).
This module picks the lists to search, runs the steps, retries a search that found nothing
wider, and caches outcomes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from service.domain.entries import EMBEDDED_TIERS, TIERS, Entry, Mode, Tier
from service.domain.errors import EngineUnavailable
from service.domain.model import Filters, Hit, in_order
from service.domain.ports import (
    Embedder,
    KeywordStore,
    Passages,
    Relations,
    Reranker,
    VectorStore,
)
from service.domain.search.fusion import Fusion, RankFusion, ScoreFusion
from service.domain.search.hydration import hydrate
from service.domain.search.learned import SHIPPED, LearnedFusion, RankingModel
from service.domain.search.query import Lists, SearchOutcome, SearchQuery, SearchResult
from service.domain.search.ranking import Weighting, above, retrieval_trust, score
from service.domain.search.similarity import best_cosines, cosine
from service.domain.search.unembedded import QueryTimeCosines
from service.domain.search.usage import ReadModelUsage, counted
from service.errors import InvalidInput
from service.lib.cache import QueryCache
from service.lib.engines import Engines
from service.lib.stopwatch import Stopwatch
from service.settings import SearchSettings

__all__ = [
    "NO_EMBEDDER",
    "NO_RERANKER",
    "Searcher",
    "Weighting",
    "best_cosines",
    "cosine",
    "resolve_mode",
    "retrieval_trust",
]

NO_EMBEDDER = "embedding model unavailable: vector search skipped, BM25 only"
QUERY_VECTORS = 256
NO_RERANKER = "reranker unavailable: results are not reranked"


def resolve_mode(mode: Mode, filters: Filters) -> Mode:
    """``auto`` is BM25 when only tier E is searched (nothing there is embedded), else hybrid."""
    if mode != "auto":
        return mode
    return "hybrid" if any(t in EMBEDDED_TIERS for t in filters.tiers) else "bm25"


def choose_fusion(
    settings: SearchSettings,
    ledger: Passages,
    keywords: KeywordStore,
    embedder: Embedder | None,
    usage: ReadModelUsage | None = None,
) -> Fusion:
    """The fusion ``settings.fusion`` names, over these stores; ``usage`` counts the
    passages it embeds at query time."""
    if settings.fusion == "rrf":
        return RankFusion(settings.list_weights, settings.rrf_k, ledger.vectors)
    if settings.fusion == "learned":
        single = ScoreFusion(settings.keyword_share, keywords.statistics, ledger.vectors)
        return LearnedFusion(load_ranking_model(settings.ranking_model), single, ledger.vectors)
    measured = (
        QueryTimeCosines(ledger, embedder, settings.unembedded_candidates, usage)
        if embedder is not None and settings.unembedded_candidates > 0
        else None
    )
    return ScoreFusion(settings.keyword_share, keywords.statistics, ledger.vectors, measured)


def load_ranking_model(path: str) -> RankingModel:
    """The model at ``path``; the shipped one when empty."""
    return RankingModel.load(Path(path) if path else SHIPPED)


AS_OF_DEPTH = 3
"""A search ``as_of`` a moment takes this many times the candidates of one of now: it
searches every tier, archived entries too, and leaves out what was not so then."""
SPARED = ("vector store", "model")
"""Engines a search does without: it answers from keywords, and says so in ``degraded``."""


class Searcher:
    def __init__(
        self,
        ledger: Passages,
        vectors: VectorStore,
        keywords: KeywordStore,
        embedder: Embedder | None,
        settings: SearchSettings,
        *,
        reranker: Reranker | None = None,
        weighting: Weighting | None = None,
        cache: QueryCache[SearchOutcome] | None = None,
        usage: ReadModelUsage | None = None,
        engines: Engines | None = None,
        on_search: Callable[[SearchOutcome, float], None] | None = None,
        history: Relations | None = None,
    ) -> None:
        """``weighting``: the tier and recency factors scores are scaled by; None: none.
        ``usage`` counts the model work of searches; None: not counted. ``on_search`` is
        told each search's outcome and its seconds. ``history`` answers searches ``as_of``
        a moment; None: they are answered as of now."""
        self.usage = usage
        self.history = history
        self.ledger = ledger
        self.vectors = vectors
        self.keywords = keywords
        self.embedder = embedder
        self.candidates = settings.candidates
        self.reranker = reranker
        self.rerank_candidates = settings.rerank_candidates
        self.rerank_default = settings.rerank == "on"
        self.weighting = weighting
        self.mmr_lambda = settings.mmr_lambda
        self.min_score = settings.min_score
        """The relevance floor: a request without a ``min_score`` of its own is given it,
        and the relaxed retry goes no higher."""
        self.fusion = choose_fusion(settings, ledger, keywords, embedder, usage)
        """Chosen once, as ``settings.fusion`` names it."""
        self.cache = cache
        self._query_vectors: dict[str, tuple[float, ...]] = {}
        self._lock = threading.Lock()
        self.reranker_problem: str | None = None
        """Why no reranker is loaded, when one is wanted."""
        self.engines = engines if engines is not None else Engines()
        """What the searches found of the vector store and the model."""
        self.on_search = on_search

    def search(self, query: SearchQuery) -> SearchOutcome:
        """Results of the query; a repeated query is answered from the cache until its
        namespace changes (or the cache's time runs out)."""
        if self.on_search is None or not counted():
            return self._cached(query)
        started = time.perf_counter()
        outcome = self._cached(query)
        self.on_search(outcome, time.perf_counter() - started)
        return outcome

    def _cached(self, query: SearchQuery) -> SearchOutcome:
        if self.cache is None:
            return self._relaxed(query)
        namespace = query.filters.namespace
        key = replace(query, filters=replace(query.filters, now=0.0))
        generation = self.cache.generation(namespace)
        cached = self.cache.get(namespace, key)
        if cached is not None:
            return replace(cached, stages={}, cached=True)
        outcome = self._relaxed(query)
        if not outcome.degraded:
            self.cache.put(namespace, key, outcome, generation)
        return outcome

    def _relaxed(self, query: SearchQuery) -> SearchOutcome:
        watch = Stopwatch()
        outcome = self._search(query, watch)
        if outcome.results or not query.relax:
            return outcome
        # Wider, never laxer than the floor in force: the retry must not bring back what
        # it dropped.
        floor = min(query.min_score, self.min_score if query.floor is None else query.floor)
        wider = replace(
            query, filters=replace(query.filters, tiers=TIERS), min_score=floor, relax=False
        )
        if wider == replace(query, relax=False):
            return outcome  # nothing to relax
        watch.restart()
        retry = self._search(wider, watch)
        return replace(retry, relaxed=True)

    def _search(self, query: SearchQuery, watch: Stopwatch) -> SearchOutcome:
        filters = query.filters
        mode = resolve_mode(query.mode, filters)
        vector_tiers = [t for t in filters.tiers if t in EMBEDDED_TIERS]
        if mode == "vector" and not vector_tiers:
            raise InvalidInput.one("tiers", "vector search covers tiers A and C only")
        degraded: list[str] = []
        if mode in ("vector", "hybrid") and vector_tiers and self.embedder is None:
            degraded.append(NO_EMBEDDER)
            mode = "bm25"
        reranker = self.reranker
        rerank = self.rerank_default if query.rerank is None else query.rerank
        # Hydrate spare candidates: an entry deleted meanwhile must not shorten the page.
        wanted = max(query.limit, self.rerank_candidates if rerank and reranker else 0) + 10
        depth = max(query.limit * 3, self.candidates)
        searched = filters
        if filters.as_of is not None:
            # The tiers and archived state an entry had then are checked once hydrated.
            searched = replace(filters, tiers=TIERS, include_archived=True)
            depth *= AS_OF_DEPTH
            wanted *= AS_OF_DEPTH  # entries recorded later, or superseded then, are left out
        try:
            lists = self.lists(query.text, searched, mode, depth, watch, fused=wanted)
        except EngineUnavailable as exc:
            self.engines.failed(exc.engine, exc.detail)
            if exc.engine not in SPARED or mode == "bm25":
                raise
            degraded.append(str(exc))
            mode = "bm25"
            watch.restart()
            lists = self.lists(query.text, searched, mode, depth, watch, fused=wanted)
        else:
            if "vector" in lists.hits:
                self.engines.answered("vector store")
                self.engines.answered("model")
        if rerank and reranker is None:
            problem = self.reranker_problem
            degraded.append(f"{NO_RERANKER}: {problem}" if problem else NO_RERANKER)
        watch.restart()
        left_out: list[Entry] | None = [] if query.explain else None
        ranked = self._rank(query, lists, reranker if rerank else None, wanted, watch, left_out)
        # Scores come out best first: the floor cuts the page's tail, and nothing beyond
        # the page could have cleared it.
        results = above(ranked, query.min_score)
        return SearchOutcome(
            results,
            mode,
            degraded,
            stages=watch.laps,
            superseded=tuple(left_out or ()),
            dropped=len(ranked) - len(results),
            keywords=self.keywords.statistics(query.text, filters.namespace)
            if query.explain and "bm25" in lists.hits
            else None,
        )

    def lists(
        self,
        text: str,
        filters: Filters,
        mode: Mode,
        depth: int,
        watch: Stopwatch | None = None,
        *,
        fused: int | None = None,
    ) -> Lists:
        """The result lists ``mode`` searches (each best first, ``depth`` long) and the
        query's vector when the vector list was searched; ``watch`` times each. ``fused``:
        how many candidates the fusion takes; a list searched alone is read no deeper than
        they need (``KeywordStore.search``'s ``needed``)."""
        watch = watch or Stopwatch()
        vector_tiers = [t for t in filters.tiers if t in EMBEDDED_TIERS]
        embedded = mode in ("vector", "hybrid") and bool(vector_tiers) and self.embedder is not None
        hits: dict[str, list[Hit]] = {}
        if mode in ("bm25", "hybrid"):
            needed = None if embedded else fused
            hits["bm25"] = self.keywords.search(text, filters, depth, needed)
            watch.lap("bm25")
        vector: tuple[float, ...] | None = None
        if embedded:
            vector = self.embed_query(text)
            watch.lap("embed")
            hits["vector"] = self._vector_hits(vector, filters, vector_tiers, depth)
            watch.lap("vector")
        if "bm25" in hits:
            hits["bm25"].sort(key=in_order)  # the vector list is in order already
        return Lists(text, filters.namespace, hits, vector)

    def embed_query(self, text: str) -> tuple[float, ...]:
        """The query's vector; the last few hundred are kept, as agents repeat questions."""
        assert self.embedder is not None
        with self._lock:
            vector = self._query_vectors.pop(text, None)
        if vector is None:
            vector = self.embedder.embed([text])[0]
            if self.usage is not None:
                self.usage.queries_embedded([text])
        with self._lock:
            self._query_vectors[text] = vector
            while len(self._query_vectors) > QUERY_VECTORS:
                del self._query_vectors[next(iter(self._query_vectors))]
        return vector

    def _vector_hits(
        self, vector: tuple[float, ...], filters: Filters, tiers: list[Tier], depth: int
    ) -> list[Hit]:
        hits = [h for tier in tiers for h in self.vectors.search(tier, vector, filters, depth)]
        hits.sort(key=in_order)
        return hits[:depth]

    def _rank(
        self,
        query: SearchQuery,
        lists: Lists,
        reranker: Reranker | None,
        wanted: int,
        watch: Stopwatch,
        superseded: list[Entry] | None = None,
    ) -> list[SearchResult]:
        """Fuse the lists, hydrate the best ``wanted`` candidates, score them
        (``superseded`` is given the candidates left out as superseded)."""
        fused = self.fusion.fuse(lists, wanted)
        watch.lap("fusion")
        kept, candidates = hydrate(self.ledger, fused, query, self.history, superseded)
        relevances = self.fusion.relevances(kept, lists.vector)
        for hit, candidate in zip(kept, candidates, strict=True):
            candidate.relevance = relevances[hit.key]
        watch.lap("hydration")
        candidates = self.fusion.settle(lists, candidates, query.explain)
        watch.lap("fusion")
        scored = score(
            query,
            candidates,
            reranker=reranker,
            rerank_candidates=self.rerank_candidates,
            weighting=self.weighting,
            mmr_lambda=self.mmr_lambda,
        )
        watch.lap("rerank" if reranker is not None else "ranking")
        return scored
