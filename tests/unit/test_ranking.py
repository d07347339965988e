"""Scoring layers after fusion: reranking, tier and recency weights, diversity, the cut."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest

from service.domain.entries import Tier
from service.domain.search.query import Candidate, ListExplain, SearchQuery, SearchResult
from service.domain.search.ranking import Weighting, above, diversified, rerank, score, weigh
from tests.fakes import T0, make_entry, make_filters

DAY = 86_400.0


def candidate(
    id: str,
    score: float,
    tier: Tier = "A",
    passage: str = "",
    relevance: float | None = None,
    **fields: Any,
) -> Candidate:
    entry = make_entry(id, passage or id, tier, **fields)
    return Candidate(entry, passage or id, score, {}, relevance)


def ids(candidates: Sequence[Candidate]) -> list[str]:
    return [c.entry.id for c in candidates]


def test_tier_weight_is_relative_to_the_largest() -> None:
    weighting = Weighting({"A": 2.0, "E": 0.5}, 0)
    assert weighting.factors(make_entry("a", "x", "A"), T0) == {"tier": 1.0}
    assert weighting.factors(make_entry("e", "x", "E"), T0) == {"tier": 0.25}
    assert weighting.factors(make_entry("c", "x", "C"), T0)["tier"] == 0.5  # unlisted: 1


def test_tier_c_decays_with_age_others_do_not() -> None:
    weighting = Weighting({}, c_recency_days=3.5)
    week_later = T0 + 7 * DAY
    assert weighting.factors(make_entry("c", "x", "C"), week_later)["recency"] == (
        pytest.approx(math.exp(-2))
    )
    assert "recency" not in weighting.factors(make_entry("a", "x", "A"), week_later)
    assert "recency" not in Weighting({}, 0).factors(make_entry("c", "x", "C"), week_later)


def test_weights_reorder_candidates_and_are_explained() -> None:
    candidates = [candidate("e", 0.9, "E"), candidate("a", 0.6, "A"), candidate("a2", 0.6, "A")]
    weighed = weigh(candidates, Weighting({"A": 1.0, "E": 0.5}, 0), T0)
    assert ids(weighed) == ["a", "a2", "e"]  # equal scores keep their order
    assert weighed[2].score == pytest.approx(0.45)
    assert weighed[2].explain["tier"].score == 0.5


class FixedReranker:
    name = "fixed"

    def __init__(self, scores: dict[str, float]) -> None:
        self.scores = scores
        self.passages: list[str] = []

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        self.passages += passages
        return [self.scores[p] for p in passages]


def test_rerank_reorders_the_head_and_keeps_the_rest_below_it() -> None:
    candidates = [candidate(k, s) for k, s in [("a", 0.9), ("b", 0.8), ("c", 0.75), ("d", 0.7)]]
    reranker = FixedReranker({"a": 0.0, "b": 0.0, "c": 1.0})
    ranked = rerank(query(), candidates, reranker, depth=3)
    assert reranker.passages == ["a", "b", "c"]
    assert ids(ranked) == ["c", "a", "b", "d"]
    c = ranked[0]
    assert c.score == pytest.approx(0.75 * 0.75 + 0.25 * 1.0)  # trusted 0.75 in the top three
    assert c.relevance == 1.0
    assert (c.explain["rerank"].rank, c.explain["rerank"].score) == (1, 1.0)
    # "d" outscores the last reranked, "b" at 0.6, but was not reranked: capped at 0.6.
    assert ranked[3].score == ranked[2].score == pytest.approx(0.6)


def test_diversity_sinks_a_repeat_and_explains_it() -> None:
    candidates = [
        candidate("first", 0.9, passage="postgres failover runbook"),
        candidate("copy", 0.85, passage="postgres failover runbook"),
        candidate("other", 0.8, passage="customer email"),
    ]
    assert ids(diversified(list(candidates), 1.0)) == ["first", "copy", "other"]
    ranked = diversified(candidates, 0.5)
    assert ids(ranked) == ["first", "other", "copy"]
    assert ranked[2].explain["mmr"].score == 0.5
    assert ranked[2].score == pytest.approx(0.425)


def query(limit: int = 10, explain: bool = False) -> SearchQuery:
    return SearchQuery("q", make_filters(), limit=limit, explain=explain)


def test_results_are_cut_at_limit_then_above_min_score() -> None:
    candidates = [candidate(k, s) for k, s in [("a", 0.9), ("b", 0.5000004), ("c", 0.4)]]
    assert ids_of(above(score(query(), list(candidates)), 0.5)) == ["a", "b"]
    assert ids_of(score(query(limit=1), candidates)) == ["a"]


def ids_of(results: Sequence[SearchResult]) -> list[str]:
    return [r.entry.id for r in results]


def test_results_carry_relevance_in_zero_to_one_and_explain_only_when_asked() -> None:
    def candidates() -> list[Candidate]:
        found = [
            candidate("high", 0.9, relevance=1.3),
            candidate("low", 0.8, relevance=-0.2),
            candidate("none", 0.7),
        ]
        found[0].explain["bm25"] = ListExplain(1, 3.2)
        return found

    plain = score(query(), candidates())
    assert [r.relevance for r in plain] == [1.0, 0.0, None]
    assert [r.explain for r in plain] == [None, None, None]
    explained = score(query(explain=True), candidates())
    assert explained[0].explain == {"bm25": ListExplain(1, 3.2)}


def test_reranking_comes_before_the_tier_weights() -> None:
    candidates = [candidate("e", 0.9, "E"), candidate("a", 0.8, "A")]
    results = score(
        query(),
        candidates,
        reranker=FixedReranker({"e": 1.0, "a": 1.0}),
        weighting=Weighting({"A": 1.0, "E": 0.5}, 0),
    )
    assert ids_of(results) == ["a", "e"]
    by_id = {r.entry.id: r for r in results}
    assert by_id["e"].relevance == 1.0  # the cross-encoder's, unweighted
    assert by_id["e"].score == pytest.approx((0.75 * 0.9 + 0.25) * 0.5)
