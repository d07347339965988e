"""Blending cross-encoder scores into the fused ranking."""

from __future__ import annotations

from collections.abc import Sequence

from service.domain.search.query import SearchQuery
from service.domain.search.searcher import NO_RERANKER, Searcher, retrieval_trust
from tests.fakes import (
    fake_memory,
    make_entry,
    make_filters,
)
from tests.settings import search_settings


class KeywordReranker:
    """Scores 1.0 for passages containing a word, else 0.5."""

    name = "keyword"

    def __init__(self, word: str) -> None:
        self.word = word
        self.seen: list[list[str]] = []

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        self.seen.append(list(passages))
        return [1.0 if self.word in p else 0.5 for p in passages]


def searcher(reranker: KeywordReranker | None, **options: object) -> Searcher:
    stores = fake_memory()
    # Repeating "cache" ranks n0 first by BM25; only n7 mentions "golden".
    stores.memory.writer.write(
        [
            make_entry(f"n{n}", " ".join(["cache"] * (20 - n)) + (" golden" if n == 7 else ""))
            for n in range(15)
        ]
    )
    # Rank fusion: the position-aware blend is about ranks.
    settings = search_settings(fusion="rrf", **options)
    return Searcher(
        stores.ledger, stores.vectors, stores.keywords, stores.embedder, settings, reranker=reranker
    )


def query(**options: bool) -> SearchQuery:
    return SearchQuery("cache", make_filters(), mode="bm25", limit=15, **options)


def ids(r: Searcher, q: SearchQuery) -> list[str]:
    return [x.entry.id for x in r.search(q).results]


def test_reranker_lifts_a_relevant_candidate_but_keeps_the_top_agreement() -> None:
    plain = ids(searcher(None), query())
    reranked = ids(searcher(KeywordReranker("golden")), query(rerank=True))
    assert plain[:2] == ["n0", "n1"] and plain.index("n7") == 7
    assert reranked.index("n7") < 7
    assert reranked[0] == "n0"


def test_rerank_is_off_by_default_and_explained_when_on() -> None:
    reranker = KeywordReranker("golden")
    r = searcher(reranker, rerank_candidates=5)
    r.search(query())
    assert reranker.seen == []
    outcome = r.search(query(rerank=True, explain=True))
    assert len(reranker.seen[0]) == 5
    ranks = [(x.explain or {})["rerank"].rank for x in outcome.results[:5]]
    assert sorted(ranks) == [1, 2, 3, 4, 5]
    assert all(x.explain is not None and "rerank" not in x.explain for x in outcome.results[5:])
    scores = [x.score for x in outcome.results]
    assert scores == sorted(scores, reverse=True)


def test_default_on_and_missing_reranker_degrades() -> None:
    reranker = KeywordReranker("golden")
    searcher(reranker, rerank="on").search(query())
    assert len(reranker.seen) == 1
    outcome = searcher(None, rerank="on").search(query())
    assert outcome.degraded == [NO_RERANKER]


def test_retrieval_is_trusted_more_at_the_top() -> None:
    assert retrieval_trust(1) > retrieval_trust(5) > retrieval_trust(20)
