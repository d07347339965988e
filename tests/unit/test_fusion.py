"""Weighted reciprocal rank fusion, the score blend, and the strategies built on them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from service.domain.model import Hit, Matrix
from service.domain.search.fusion import (
    ChunkVectors,
    Fused,
    FusedHit,
    RankFusion,
    ScoreFusion,
    fuse,
)
from service.domain.search.query import Lists
from tests.fakes.keyword_store import bounded

K = 60.0


def keys(fused: list[Fused]) -> list[str]:
    return [f.key for f in fused]


def test_an_entry_first_in_every_list_scores_one() -> None:
    fused = fuse({"bm25": ["a", "b"], "vector": ["a", "c"]}, {"bm25": 1.0, "vector": 1.0}, K)
    assert fused[0].key == "a"
    assert fused[0].score == 1.0


@pytest.mark.parametrize("rank", [1, 2, 5, 10])
def test_single_list_score_is_k_plus_one_over_k_plus_rank(rank: int) -> None:
    listed = [f"d{n}" for n in range(1, 11)]
    fused = fuse({"bm25": listed}, {"bm25": 1.0}, K)
    assert fused[rank - 1].key == f"d{rank}"
    assert fused[rank - 1].score == pytest.approx((K + 1) / (K + rank))


def test_single_list_score_does_not_depend_on_its_weight() -> None:
    light = fuse({"bm25": ["a", "b"]}, {"bm25": 0.3}, K)
    heavy = fuse({"bm25": ["a", "b"]}, {"bm25": 3.0}, K)
    assert [f.score for f in light] == pytest.approx([f.score for f in heavy])


def test_scores_stay_within_zero_and_one_best_first() -> None:
    fused = fuse(
        {"bm25": ["a", "b", "c", "d"], "vector": ["d", "c", "e"]},
        {"bm25": 1.0, "vector": 2.0},
        K,
    )
    scores = [f.score for f in fused]
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores == sorted(scores, reverse=True)


def test_entry_found_by_both_lists_beats_entries_found_by_one() -> None:
    fused = fuse({"bm25": ["a", "both"], "vector": ["b", "both"]}, {}, K)
    assert fused[0].key == "both"


def test_ranks_are_one_based_per_list_the_entry_appears_in() -> None:
    fused = {f.key: f for f in fuse({"bm25": ["a", "b"], "vector": ["b"]}, {}, K)}
    assert fused["a"].ranks == {"bm25": 1}
    assert fused["b"].ranks == {"bm25": 2, "vector": 1}


def test_heavier_list_decides_between_two_firsts() -> None:
    lists = {"bm25": ["lexical"], "vector": ["semantic"]}
    assert keys(fuse(lists, {"bm25": 1.0, "vector": 2.0}, K))[0] == "semantic"
    assert keys(fuse(lists, {"bm25": 2.0, "vector": 1.0}, K))[0] == "lexical"


def test_raw_score_is_weighted_reciprocal_rank_over_best_possible() -> None:
    weights = {"bm25": 1.0, "vector": 3.0}
    fused = {f.key: f for f in fuse({"bm25": ["x", "y"], "vector": ["y"]}, weights, K)}
    best = 1.0 / (K + 1) + 3.0 / (K + 1)
    assert fused["y"].score == pytest.approx((1.0 / (K + 2) + 3.0 / (K + 1)) / best)
    assert fused["x"].score == pytest.approx((1.0 / (K + 1)) / best)


def test_missing_weight_counts_as_one() -> None:
    assert fuse({"bm25": ["a"], "vector": ["b"]}, {}, K)[0].score == pytest.approx(0.5)


def test_ties_keep_order_of_first_appearance_lists_in_given_order() -> None:
    assert keys(fuse({"bm25": ["a"], "vector": ["b"]}, {}, K)) == ["a", "b"]
    assert keys(fuse({"vector": ["b"], "bm25": ["a"]}, {}, K)) == ["b", "a"]
    assert keys(fuse({"bm25": ["a", "b"], "vector": ["b", "a"]}, {}, K)) == ["a", "b"]


def test_entry_in_several_lists_appears_once() -> None:
    fused = fuse({"bm25": ["a", "b", "c"], "vector": ["c", "b", "a"]}, {}, K)
    assert sorted(keys(fused)) == ["a", "b", "c"]


def test_key_repeated_within_one_list_counts_once_at_its_first_rank() -> None:
    # Stores promise one hit per entry; if one sends two, they must not add up.
    fused = fuse({"bm25": ["a", "b", "a"], "vector": ["b"]}, {}, K)
    by_key = {f.key: f for f in fused}
    assert keys(fused) == ["b", "a"]
    assert by_key["a"].ranks == {"bm25": 1}
    assert by_key["a"].score == pytest.approx(0.5)


def test_zero_weight_list_adds_nothing_but_its_entries_stay_listed() -> None:
    fused = {f.key: f for f in fuse({"bm25": ["a"], "vector": ["b"]}, {"vector": 0.0}, K)}
    assert fused["a"].score == 1.0
    assert fused["b"].score == 0.0
    assert fused["b"].ranks == {"vector": 1}


def test_all_weights_zero_gives_zero_scores_not_an_error() -> None:
    fused = fuse({"bm25": ["a", "b"]}, {"bm25": 0.0}, K)
    assert keys(fused) == ["a", "b"]
    assert [f.score for f in fused] == [0.0, 0.0]


def test_no_lists_or_empty_lists_give_nothing() -> None:
    assert fuse({}, {}, K) == []
    assert fuse({"bm25": [], "vector": []}, {}, K) == []


def test_empty_list_searched_still_counts_in_the_best_possible() -> None:
    # Hybrid search where the vector list came back empty: bm25's first is half of perfect.
    fused = fuse({"bm25": ["a"], "vector": []}, {}, K)
    assert fused[0].score == pytest.approx(0.5)


def test_blend_mixes_keyword_and_similarity_by_share() -> None:
    from service.domain.search.fusion import blend

    lists = {"bm25": ["a", "b"], "vector": ["b", "c"]}
    fused = blend(lists, {"a": 1.0, "b": 0.5}, {"b": 0.9, "c": 0.8, "a": 0.1}, 0.7)
    scores = {f.key: round(f.score, 6) for f in fused}
    assert scores == {"a": 0.73, "b": 0.62, "c": 0.24}
    assert [f.key for f in fused] == ["a", "b", "c"]
    assert fused[1].ranks == {"bm25": 2, "vector": 1}


def test_blend_with_one_list_is_that_lists_score_clipped() -> None:
    from service.domain.search.fusion import blend

    only_keyword = blend({"bm25": ["a"]}, {"a": 1.7}, {"a": 0.9}, 0.7)
    assert only_keyword[0].score == 1.0
    only_vector = blend({"vector": ["a"]}, {}, {"a": -0.2}, 0.7)
    assert only_vector[0].score == 0.0


# --------------------------------------------------------------------------- strategies


Vectors = dict[str, list[tuple[float, ...]]]


def ledger_vectors(
    vectors: Vectors | None = None, asked: list[list[str]] | None = None
) -> ChunkVectors:
    """Chunk vectors as the ledger gives them (a float32 matrix per entry), recording the
    keys asked for."""

    def chunk_vectors(keys: Sequence[str]) -> dict[str, Matrix]:
        if asked is not None:
            asked.append(list(keys))
        found = {k: v for k, v in (vectors or {}).items() if k in keys and v}
        return {k: np.asarray(v, dtype=np.float32) for k, v in found.items()}

    return chunk_vectors


def score_fusion(
    bound: float = 2.0, vectors: Vectors | None = None, asked: list[list[str]] | None = None
) -> ScoreFusion:
    """Score fusion over a fixed BM25 bound and chunk vectors, recording what it asks for."""
    return ScoreFusion(0.7, bounded(bound), ledger_vectors(vectors, asked))


def rank_fusion(vectors: Vectors | None = None) -> RankFusion:
    return RankFusion({}, K, ledger_vectors(vectors))


def test_score_fusion_mixes_bm25_over_its_bound_with_the_cosine() -> None:
    lists = {"bm25": [Hit("a", 2.0), Hit("b", 1.0)], "vector": [Hit("b", 0.8, chunk=3)]}
    fused = score_fusion(bound=2.0).fuse(Lists("q", "ns", lists, (1.0, 0.0)), limit=10)
    assert [(f.key, round(f.score, 6)) for f in fused] == [("a", 0.7), ("b", 0.59)]
    b = fused[1]
    assert {name: (e.rank, e.score) for name, e in b.explain.items()} == {
        "bm25": (2, 1.0),
        "vector": (1, 0.8),
    }
    assert b.vector_hit == Hit("b", 0.8, chunk=3)
    assert fused[0].vector_hit is None


def test_score_fusion_takes_the_cosine_of_bm25_only_hits_from_the_ledger() -> None:
    asked: list[list[str]] = []
    vectors: Vectors = {"a": [(0.0, 1.0), (0.6, 0.8)], "b": [(1.0, 0.0)]}
    lists = {"bm25": [Hit("a", 1.0), Hit("b", 1.0)], "vector": [Hit("b", 1.0)]}
    fused = score_fusion(bound=1.0, vectors=vectors, asked=asked).fuse(
        Lists("q", "ns", lists, (1.0, 0.0)), limit=10
    )
    assert asked == [["a"]]  # only what the vector list did not find
    assert {f.key: round(f.score, 6) for f in fused} == {"b": 1.0, "a": 0.88}


@pytest.mark.parametrize(
    ("lists", "vector"),
    [({"bm25": ["a"]}, (1.0, 0.0)), ({"bm25": ["a"], "vector": []}, None)],
)
def test_score_fusion_needs_no_ledger_vectors_without_both_lists_and_a_query_vector(
    lists: dict[str, list[str]], vector: tuple[float, ...] | None
) -> None:
    asked: list[list[str]] = []
    hits = {name: [Hit(k, 1.0) for k in keys] for name, keys in lists.items()}
    score_fusion(asked=asked).fuse(Lists("q", "ns", hits, vector), limit=10)
    assert asked == []


def test_fusion_returns_only_the_best_limit_candidates() -> None:
    lists = {"bm25": [Hit(k, 5.0 - n) for n, k in enumerate("abcde")]}
    assert [f.key for f in score_fusion().fuse(Lists("q", "ns", lists, None), limit=2)] == [
        "a",
        "b",
    ]
    assert [f.key for f in rank_fusion().fuse(Lists("q", "ns", lists, None), limit=3)] == list(
        "abc"
    )


def test_rank_fusion_scores_are_weighted_rrf() -> None:
    lists = {"bm25": [Hit("x", 9.0), Hit("y", 3.0)], "vector": [Hit("y", 0.5)]}
    rrf = RankFusion({"bm25": 1.0, "vector": 3.0}, K, ledger_vectors())
    fused = rrf.fuse(Lists("q", "ns", lists, None), limit=10)
    expected = fuse({"bm25": ["x", "y"], "vector": ["y"]}, {"bm25": 1.0, "vector": 3.0}, K)
    assert [(f.key, f.score) for f in fused] == [(f.key, f.score) for f in expected]
    assert fused[0].explain["bm25"].score == 3.0 and fused[0].explain["vector"].rank == 1


def test_relevance_is_the_fused_score_in_score_fusion() -> None:
    hit = FusedHit("a", 0.42, {})
    fusion = score_fusion(vectors={"a": [(1.0, 0.0)]})
    assert fusion.relevances([hit], (0.0, 1.0))["a"] == 0.42


def test_relevance_in_rank_fusion_is_the_best_chunk_cosine_or_unknown() -> None:
    query = (1.0, 0.0)
    found = FusedHit("a", 1.0, {}, Hit("a", 0.9))
    assert rank_fusion({"a": [(0.0, 1.0)]}).relevances([found], query)["a"] == 0.9
    keyword_only = FusedHit("a", 1.0, {})
    two_chunks = rank_fusion({"a": [(0.0, 1.0), (0.6, 0.8)]})
    assert two_chunks.relevances([keyword_only], query)["a"] == pytest.approx(0.6)
    assert rank_fusion({"a": []}).relevances([keyword_only], query)["a"] is None  # tier E
    assert rank_fusion({"a": [(0.6, 0.8)]}).relevances([keyword_only], None)["a"] is None
