"""Hybrid search: BM25 and vector candidates fused by weighted RRF, hydrated from the ledger."""

from __future__ import annotations

from collections.abc import Mapping

from service.domain.fusion import fuse
from service.domain.models import (
    EMBEDDED_TIERS,
    Filters,
    Hit,
    ListExplain,
    Mode,
    SearchOutcome,
    SearchQuery,
    SearchResult,
    Tier,
)
from service.domain.ports import Embedder, KeywordStore, Ledger, VectorStore
from service.domain.snippets import best_chunk, query_terms, snippet
from service.errors import InvalidInput

NO_EMBEDDER = "embedding model unavailable: vector search skipped, BM25 only"


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
    ) -> None:
        self.ledger = ledger
        self.vectors = vectors
        self.keywords = keywords
        self.embedder = embedder
        self.rrf_k = rrf_k
        self.weights = dict(weights or {"bm25": 1.0, "vector": 1.0})
        self.candidates = candidates

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
        results = self._rank(query, lists)
        return SearchOutcome(results, mode, degraded)

    def _vector_hits(self, text: str, filters: Filters, tiers: list[Tier], depth: int) -> list[Hit]:
        assert self.embedder is not None
        vector = self.embedder.embed([text])[0]
        hits = [h for tier in tiers for h in self.vectors.search(tier, vector, filters, depth)]
        hits.sort(key=lambda h: (-round(h.score, 6), h.key))
        return hits[:depth]

    def _rank(self, query: SearchQuery, lists: dict[str, list[Hit]]) -> list[SearchResult]:
        fused = fuse(
            {name: [h.key for h in hits] for name, hits in lists.items()}, self.weights, self.rrf_k
        )
        by_list = {name: {h.key: h for h in hits} for name, hits in lists.items()}
        # Hydrate a few spare candidates: an entry deleted meanwhile must not shorten the page.
        top = fused[: query.limit + 10]
        stored = self.ledger.get([f.key for f in top])
        terms = query_terms(query.text)
        results: list[SearchResult] = []
        for item in top:
            if len(results) == query.limit:
                break
            found = stored.get(item.key)
            # An entry deleted between ranking and hydration, or (defensively) one of
            # another namespace, is never shown.
            if found is None or found.entry.namespace != query.filters.namespace:
                continue
            texts = [c.text for c in found.chunks] or [found.entry.text]
            vector_hit = by_list.get("vector", {}).get(item.key)
            chunk = vector_hit.chunk if vector_hit else best_chunk(texts, terms)
            explain = None
            if query.explain:
                explain = {
                    name: ListExplain(rank, by_list[name][item.key].score)
                    for name, rank in item.ranks.items()
                }
            results.append(
                SearchResult(
                    found.entry,
                    snippet(texts[min(chunk, len(texts) - 1)], terms),
                    round(item.score, 6),
                    explain,
                )
            )
        return results
