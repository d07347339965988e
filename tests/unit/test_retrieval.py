"""Hybrid search over fake stores: modes, degradation, hydration, explain, limits."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest

from service.domain.entries import Mode, Tier
from service.domain.model import Filters, Hit
from service.domain.search.query import SearchOutcome, SearchQuery
from service.domain.search.searcher import NO_EMBEDDER, Searcher, Weighting, resolve_mode
from service.errors import InvalidInput
from service.lib.cache import QueryCache
from service.settings import ChunkingSettings
from tests.fakes import (
    FakeKeywordStore,
    FakeStores,
    FakeVectorStore,
    fake_memory,
    make_entry,
    make_filters,
    memory_over,
)
from tests.settings import CHUNKING, search_settings


def embeddings_of(stores: Stores) -> list[list[str]]:
    """The texts of each call to the embedder from now on, in order."""
    calls: list[list[str]] = []
    embed = stores.embedder.embed

    def counted(texts: Sequence[str]) -> list[tuple[float, ...]]:
        calls.append(list(texts))
        return embed(texts)

    stores.embedder.embed = counted  # type: ignore[method-assign]
    return calls


MEASURED: dict[str, Any] = {"fusion": "score", "unembedded_candidates": 10}
"""Score fusion with cosines of unembedded candidates measured at query time (opt-in)."""


class Stores(FakeStores):
    """The fakes of ``fake_memory``, with a searcher over them."""

    def searcher(
        self,
        *,
        embedder: bool = True,
        weighting: Weighting | None = None,
        cache: QueryCache[SearchOutcome] | None = None,
        **options: object,
    ) -> Searcher:
        return Searcher(
            self.ledger,
            self.vectors,
            self.keywords,
            self.embedder if embedder else None,
            search_settings(**options),
            weighting=weighting,
            cache=cache,
        )


@pytest.fixture
def stores() -> Stores:
    return Stores(**vars(fake_memory(ChunkingSettings(words=20, overlap=5))))


def query(
    text: str, mode: Mode = "auto", limit: int = 10, explain: bool = False, **filters: Any
) -> SearchQuery:
    return SearchQuery(text, make_filters(**filters), mode, limit, explain)


@pytest.mark.parametrize(
    ("tiers", "mode"),
    [
        (("E",), "bm25"),
        (("A",), "hybrid"),
        (("C",), "hybrid"),
        (("C", "E"), "hybrid"),
        (("A", "C", "E"), "hybrid"),
    ],
)
def test_auto_is_bm25_for_tier_e_alone_else_hybrid(tiers: tuple[Tier, ...], mode: Mode) -> None:
    assert resolve_mode("auto", make_filters(tiers=tiers)) == mode


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_explicit_mode_is_kept(mode: Mode) -> None:
    assert resolve_mode(mode, make_filters(tiers=("E",))) == mode


def test_hybrid_search_finds_entries_of_every_tier(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("a", "the deployment failed on friday", "A"),
            make_entry("c", "deployment retro scheduled", "C"),
            make_entry("e", "deployment log line", "E"),
            make_entry("x", "lunch menu", "A"),
        ]
    )
    outcome = stores.searcher().search(query("deployment"))
    assert outcome.mode == "hybrid"
    assert outcome.degraded == []
    ids = [r.entry.id for r in outcome.results]
    # The vector list ranks every embedded entry, so "x" may trail; it never leads.
    assert set(ids[:3]) == {"a", "c", "e"}
    assert all(0.0 <= r.score <= 1.0 for r in outcome.results)


def test_score_fusion_mixes_bounded_bm25_and_cosine(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("hit", "kubernetes upgrade", "A"),
            make_entry("log", "kubernetes upgrade", "E"),
        ]
    )
    outcome = stores.searcher(**MEASURED).search(query("kubernetes upgrade", explain=True))
    scores = {r.entry.id: r.score for r in outcome.results}
    keyword = 1.0 / 2.2  # each word once, of a bound of 2.2 a word
    assert scores["hit"] == pytest.approx(0.7 * keyword + 0.3 * 1.0, abs=1e-6)
    # Tier E has no stored vector: its best chunk is embedded at query time instead.
    assert scores["log"] == pytest.approx(0.7 * keyword + 0.3 * 1.0, abs=1e-6)
    unmeasured = stores.searcher(fusion="score").search(query("kubernetes upgrade"))
    without = {r.entry.id: r.score for r in unmeasured.results}
    assert without["log"] == pytest.approx(0.7 * keyword, abs=1e-6)


def test_only_the_best_unembedded_candidates_are_embedded_at_query_time(
    stores: Stores,
) -> None:
    stores.memory.writer.write(
        [make_entry(f"log{n}", "kubernetes upgrade " + "x " * n, "E") for n in range(5)]
    )
    calls = embeddings_of(stores)
    stores.searcher(fusion="score", unembedded_candidates=2).search(query("kubernetes upgrade"))
    assert [len(c) for c in calls] == [1, 2]  # the query; then the two best by BM25, at once


def test_bm25_only_candidates_get_their_cosine_from_the_ledger(stores: Stores) -> None:
    stores.memory.writer.write(
        [make_entry(f"v{n}", f"alpha beta {n}", "A") for n in range(3)]
        + [make_entry("target", "kubernetes", "A")]
    )
    few = stores.searcher(candidates=1, fusion="score")
    outcome = few.search(query("kubernetes", limit=1, explain=True))
    top = outcome.results[0]
    # The fake vectors hash words: only "target" shares its one word with the query.
    assert top.entry.id == "target"
    assert top.score == pytest.approx(0.7 * 1.0 / 2.2 + 0.3 * 1.0)


def test_rrf_entry_first_in_both_lists_scores_one(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("hit", "kubernetes upgrade", "A"),
            make_entry("other", "kubernetes", "A", speaker="zed"),
        ]
    )
    outcome = stores.searcher(fusion="rrf").search(query("kubernetes upgrade", explain=True))
    top = outcome.results[0]
    assert top.entry.id == "hit"
    assert set(top.explain or {}) == {"bm25", "vector"}
    assert top.score == 1.0


def test_auto_over_tier_e_only_is_bm25_without_the_model(stores: Stores) -> None:
    stores.memory.writer.write([make_entry("e", "disk full on node three", "E")])
    outcome = stores.searcher().search(query("disk full", tiers=("E",)))
    assert outcome.mode == "bm25"
    assert [r.entry.id for r in outcome.results] == ["e"]
    assert stores.embedder.calls == []


def test_vector_mode_over_tier_e_only_names_the_tiers_field(stores: Stores) -> None:
    with pytest.raises(InvalidInput) as raised:
        stores.searcher().search(query("anything", mode="vector", tiers=("E",)))
    assert [e.field for e in raised.value.errors] == ["tiers"]


def test_vector_mode_searches_embedded_tiers_only(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("a", "deployment failed", "A"),
            make_entry("e", "deployment failed", "E"),
        ]
    )
    outcome = stores.searcher().search(query("deployment failed", mode="vector", explain=True))
    assert outcome.mode == "vector"
    assert [r.entry.id for r in outcome.results] == ["a"]
    assert set(outcome.results[0].explain or {}) == {"vector"}


@pytest.mark.parametrize("mode", ["auto", "hybrid", "vector"])
def test_without_a_model_search_degrades_to_bm25_and_says_so(stores: Stores, mode: Mode) -> None:
    stores.memory.writer.write([make_entry("a", "deployment failed", "A")])
    outcome = stores.searcher(embedder=False).search(query("deployment", mode=mode, explain=True))
    assert outcome.mode == "bm25"
    assert outcome.degraded == [NO_EMBEDDER]
    assert [r.entry.id for r in outcome.results] == ["a"]
    assert set(outcome.results[0].explain or {}) == {"bm25"}


def test_bm25_mode_without_a_model_is_not_degraded(stores: Stores) -> None:
    stores.memory.writer.write([make_entry("a", "deployment failed", "A")])
    outcome = stores.searcher(embedder=False).search(query("deployment", mode="bm25"))
    assert outcome.degraded == []
    assert [r.entry.id for r in outcome.results] == ["a"]


def test_results_are_hydrated_from_the_ledger(stores: Stores) -> None:
    stores.memory.writer.write(
        [make_entry("a", "deployment failed", "A", speaker="ann", tags=("ops",))]
    )
    # The ledger holds a newer version than the indexes (a write not yet re-indexed).
    newer = make_entry("a", "deployment failed twice", "A", speaker="ann", tags=("ops", "p1"))
    stores.ledger.put(stores.memory.preparer.prepare([newer]))
    result = stores.searcher().search(query("deployment")).results[0]
    assert result.entry == newer


def test_entry_gone_from_the_ledger_is_never_shown(stores: Stores) -> None:
    stores.memory.writer.write(
        [make_entry("a", "deployment one", "A"), make_entry("b", "deployment two", "A")]
    )
    stores.ledger.remove(["ns:a"])  # the indexes still list it
    outcome = stores.searcher().search(query("deployment"))
    assert [r.entry.id for r in outcome.results] == ["b"]


def test_entry_being_deleted_is_never_shown(stores: Stores) -> None:
    stores.memory.writer.write([make_entry("a", "deployment one", "A")])
    stores.ledger.mark_deleting(["ns:a"])
    assert stores.searcher().search(query("deployment")).results == []


class LeakyKeywordStore(FakeKeywordStore):
    """A keyword index that forgets to filter by namespace."""

    def search(
        self, text: str, filters: Filters, limit: int, needed: int | None = None
    ) -> list[Hit]:
        hits: list[Hit] = []
        for namespace in {s.entry.namespace for s in self.entries.values()}:
            hits += super().search(text, dataclasses.replace(filters, namespace=namespace), limit)
        return hits


def test_entries_of_another_namespace_never_appear(stores: Stores) -> None:
    keywords = LeakyKeywordStore()
    memory = memory_over(stores.ledger, stores.vectors, keywords, stores.embedder, CHUNKING)
    memory.writer.write(
        [
            make_entry("mine", "deployment failed", "A", namespace="ns"),
            make_entry("theirs", "deployment failed badly", "A", namespace="other"),
            make_entry("log", "deployment failed", "E", namespace="other"),
        ]
    )
    searcher = Searcher(stores.ledger, stores.vectors, keywords, stores.embedder, search_settings())
    outcome = searcher.search(query("deployment failed badly"))
    assert [(r.entry.namespace, r.entry.id) for r in outcome.results] == [("ns", "mine")]


def test_same_id_in_two_namespaces_are_separate_entries(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("1", "deployment in ns", "A", namespace="ns"),
            make_entry("1", "deployment in other", "A", namespace="other"),
        ]
    )
    results = stores.searcher().search(query("deployment", namespace="other")).results
    assert [(r.entry.namespace, r.entry.text) for r in results] == [
        ("other", "deployment in other")
    ]


def test_explain_gives_rank_and_store_score_per_list(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("both", "alpha beta", "A"),
            make_entry("words", "alpha beta alpha", "E"),
        ]
    )
    outcome = stores.searcher(**MEASURED).search(query("alpha beta", explain=True))
    by_id = {r.entry.id: r.explain for r in outcome.results}
    assert by_id["words"] is not None and by_id["both"] is not None
    # The tier E entry has no stored vector: its cosine, measured at query time, is shown
    # as a vector part of rank 0 (scored, not ranked by the vector list).
    assert set(by_id["words"]) == {"bm25", "vector"}
    assert by_id["words"]["vector"].rank == 0
    assert 0 < by_id["words"]["vector"].score <= 1
    assert by_id["words"]["bm25"].rank == 1
    assert by_id["words"]["bm25"].score == pytest.approx(2 * 2.2 / 3.2 + 1.0)
    assert by_id["both"]["bm25"].rank == 2
    assert by_id["both"]["bm25"].score == pytest.approx(2.0)
    assert by_id["both"]["vector"].rank == 1
    assert by_id["both"]["vector"].score == pytest.approx(1.0)


def test_no_explain_unless_asked(stores: Stores) -> None:
    stores.memory.writer.write([make_entry("a", "alpha", "A")])
    assert stores.searcher().search(query("alpha")).results[0].explain is None


@pytest.mark.parametrize("limit", [1, 3, 7])
def test_limit_caps_the_results(stores: Stores, limit: int) -> None:
    stores.memory.writer.write(
        [make_entry(f"e{n}", f"deployment note {n}", "A") for n in range(10)]
    )
    outcome = stores.searcher().search(query("deployment", limit=limit))
    assert len(outcome.results) == limit


class RecordingKeywordStore(FakeKeywordStore):
    def __init__(self) -> None:
        super().__init__()
        self.limits: list[int] = []
        self.needed: list[int | None] = []

    def search(
        self, text: str, filters: Filters, limit: int, needed: int | None = None
    ) -> list[Hit]:
        self.limits.append(limit)
        self.needed.append(needed)
        return super().search(text, filters, limit, needed)


@pytest.mark.parametrize(("limit", "depth"), [(5, 50), (40, 120)])
def test_each_list_is_asked_for_enough_candidates(stores: Stores, limit: int, depth: int) -> None:
    keywords = RecordingKeywordStore()
    searcher = Searcher(
        stores.ledger, stores.vectors, keywords, None, search_settings(candidates=50)
    )
    searcher.search(query("x", mode="bm25", limit=limit))
    assert keywords.limits == [depth]


@pytest.mark.parametrize(("mode", "needed"), [("bm25", [50]), ("hybrid", [None])])
def test_a_list_searched_alone_is_read_only_as_deep_as_the_fusion_takes(
    stores: Stores, mode: Mode, needed: list[int | None]
) -> None:
    """Fusing two lists reads each whole; one list alone is fused in its own order, so only
    its best ``limit`` + 10 (the spare candidates) are needed."""
    keywords = RecordingKeywordStore()
    searcher = Searcher(
        stores.ledger, stores.vectors, keywords, stores.embedder, search_settings(candidates=50)
    )
    searcher.search(query("x", mode=mode, limit=40, tiers=("A",)))
    assert keywords.limits == [120]
    assert keywords.needed == needed


def test_filters_reach_the_stores(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("ann", "deployment", "A", speaker="ann"),
            make_entry("bob", "deployment", "A", speaker="bob"),
            make_entry("old", "deployment", "C", speaker="bob", expires_at=1.0),
        ]
    )
    results = stores.searcher().search(query("deployment", speaker="bob")).results
    assert [r.entry.id for r in results] == ["bob"]


def test_snippet_comes_from_the_matching_chunk_of_a_long_entry(stores: Stores) -> None:
    text = " ".join(["filler"] * 60) + " the database migration broke " + " ".join(["tail"] * 60)
    stores.memory.writer.write([make_entry("long", text, "E")])
    result = stores.searcher().search(query("database migration")).results[0]
    assert "database migration" in result.snippet
    assert result.entry.text == text


class PinnedVectorStore(FakeVectorStore):
    """Matches every entry at one chosen chunk."""

    def __init__(self, chunk: int) -> None:
        super().__init__()
        self.chunk = chunk

    def search(
        self, tier: Tier, vector: Sequence[float], filters: Filters, limit: int
    ) -> list[Hit]:
        hits = super().search(tier, vector, filters, limit)
        return [h._replace(chunk=self.chunk) for h in hits]


def test_snippet_follows_the_chunk_the_vector_store_matched(stores: Stores) -> None:
    vectors = PinnedVectorStore(chunk=2)
    memory = memory_over(
        stores.ledger,
        vectors,
        stores.keywords,
        stores.embedder,
        ChunkingSettings(words=4, overlap=0),
    )
    memory.writer.write(
        [make_entry("long", "revenue grew this quarter while costs fell sharply overall", "A")]
    )
    searcher = Searcher(stores.ledger, vectors, stores.keywords, stores.embedder, search_settings())
    result = searcher.search(query("revenue", mode="vector")).results[0]
    assert result.snippet == "overall"
    result = searcher.search(query("revenue", mode="bm25")).results[0]
    assert result.snippet == "revenue grew this quarter"


def test_a_filtered_search_that_finds_nothing_is_retried_wider(stores: Stores) -> None:
    stores.memory.writer.write([make_entry("a", "we chose postgres for billing", "A")])
    strict = dataclasses.replace(query("postgres billing", tiers=("E",)), relax=True)
    outcome = stores.searcher().search(strict)
    assert outcome.relaxed is True
    assert [r.entry.id for r in outcome.results] == ["a"]


def test_relaxing_drops_the_threshold(stores: Stores) -> None:
    # Found by BM25 alone, the entry scores 0.5 in a hybrid search.
    stores.memory.writer.write([make_entry("e", "postgres failover log", "E")])
    too_high = dataclasses.replace(query("postgres"), min_score=0.9, relax=True)
    assert stores.searcher().search(dataclasses.replace(too_high, relax=False)).results == []
    outcome = stores.searcher().search(too_high)
    assert outcome.relaxed is True
    assert [r.entry.id for r in outcome.results] == ["e"]


def test_relaxing_goes_no_lower_than_the_namespaces_floor(stores: Stores) -> None:
    # A sweep's floor over the service's: the retry keeps it.
    stores.memory.writer.write([make_entry("e", "postgres failover log", "E")])
    fitted = dataclasses.replace(
        query("postgres", tiers=("A",)), min_score=0.9, relax=True, floor=0.9
    )
    outcome = stores.searcher().search(fitted)
    assert outcome.relaxed is True and outcome.results == []


def test_no_relaxed_retry_when_results_exist_or_nothing_to_widen(stores: Stores) -> None:
    stores.memory.writer.write([make_entry("e", "disk full on node three", "E")])
    found = stores.searcher().search(dataclasses.replace(query("disk", tiers=("E",)), relax=True))
    assert found.relaxed is False and len(found.results) == 1
    nothing = stores.searcher().search(dataclasses.replace(query("kubernetes"), relax=True))
    assert nothing.relaxed is False and nothing.results == []


def test_min_score_drops_weaker_results(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("both", "kubernetes upgrade", "A"),
            make_entry("one", "kubernetes", "E"),
        ]
    )
    everything = stores.searcher().search(query("kubernetes upgrade"))
    assert len(everything.results) == 2
    cut = everything.results[0].score
    strict = stores.searcher().search(
        dataclasses.replace(query("kubernetes upgrade"), min_score=cut)
    )
    assert [r.entry.id for r in strict.results] == [everything.results[0].entry.id]
    assert (everything.dropped, strict.dropped) == (0, 1)
    page = dataclasses.replace(query("kubernetes upgrade", limit=1), min_score=cut)
    assert stores.searcher().search(page).dropped == 0, "only results within the limit count"


def test_the_floor_of_the_settings_is_what_queries_are_given_and_zero_shows_all(
    stores: Stores,
) -> None:
    stores.memory.writer.write([make_entry("e", "postgres failover log", "E")])
    floored = stores.searcher(min_score=0.9)
    assert floored.min_score == 0.9
    below = floored.search(dataclasses.replace(query("postgres"), min_score=floored.min_score))
    assert (below.results, below.dropped, below.relaxed) == ([], 1, False)
    shown = floored.search(dataclasses.replace(query("postgres"), min_score=0.0))
    assert [r.entry.id for r in shown.results] == ["e"] and shown.dropped == 0


def test_the_relaxed_retry_widens_the_tiers_but_keeps_the_floor(stores: Stores) -> None:
    # Found by BM25 alone, the entry scores 0.5 in a hybrid search: below a floor of 0.6.
    stores.memory.writer.write([make_entry("e", "postgres failover log", "E")])
    floored = stores.searcher(min_score=0.6)
    narrow = dataclasses.replace(query("postgres", tiers=("A",)), min_score=0.6, relax=True)
    outcome = floored.search(narrow)
    assert (outcome.results, outcome.relaxed, outcome.dropped) == ([], True, 1)
    higher = floored.search(dataclasses.replace(narrow, min_score=0.9))
    assert (higher.results, higher.dropped) == ([], 1), "the retry goes down to the floor only"
    off = floored.search(dataclasses.replace(narrow, min_score=0.0))
    assert [r.entry.id for r in off.results] == ["e"] and off.relaxed is True
    lower = stores.searcher(min_score=0.3).search(dataclasses.replace(narrow, min_score=0.9))
    assert [r.entry.id for r in lower.results] == ["e"] and lower.relaxed is True


def test_relevance_is_the_fusion_score_before_tier_weights(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("a", "kubernetes upgrade", "A"),
            make_entry("e", "kubernetes upgrade", "E"),
        ]
    )
    weighted = stores.searcher(
        weighting=Weighting({"A": 1.0, "E": 0.5}, c_recency_days=0), **MEASURED
    )
    outcome = weighted.search(query("kubernetes upgrade"))
    by_id = {r.entry.id: r for r in outcome.results}
    assert by_id["e"].relevance == pytest.approx(0.7 * 1.0 / 2.2 + 0.3 * 1.0)
    relevance = by_id["e"].relevance
    assert relevance is not None
    assert by_id["e"].score == pytest.approx(relevance * 0.5)
    assert by_id["a"].relevance == pytest.approx(by_id["a"].score)


def test_with_rank_fusion_relevance_is_the_cosine_and_unknown_for_tier_e(
    stores: Stores,
) -> None:
    stores.memory.writer.write(
        [
            make_entry("a", "kubernetes upgrade", "A"),
            make_entry("e", "kubernetes upgrade", "E"),
        ]
    )
    outcome = stores.searcher(fusion="rrf").search(query("kubernetes upgrade"))
    relevance = {r.entry.id: r.relevance for r in outcome.results}
    assert relevance["a"] == pytest.approx(1.0)
    assert relevance["e"] is None


def test_mmr_sinks_a_near_duplicate_below_a_distinct_result(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("first", "billing outage postgres failover runbook", "E"),
            make_entry("copy", "billing outage postgres failover runbook again", "E"),
            make_entry("other", "billing outage customer email", "E"),
        ]
    )
    text = "billing outage postgres failover runbook"
    plain = stores.searcher().search(query(text, tiers=("E",)))
    assert [r.entry.id for r in plain.results][2] == "other"
    diverse = stores.searcher(mmr_lambda=0.1).search(query(text, tiers=("E",), explain=True))
    assert [r.entry.id for r in diverse.results][1:] == ["other", "first"]
    scores = [r.score for r in diverse.results]
    assert scores == sorted(scores, reverse=True)
    assert "mmr" in (diverse.results[2].explain or {})


def test_kind_filter_finds_patterns_only(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("m", "choose a datastore by transactions", "A"),
            make_entry("p", "choose a datastore", "A", kind="pattern", variants=("acid first",)),
        ]
    )
    outcome = stores.searcher().search(query("acid datastore", kind="pattern"))
    assert [r.entry.id for r in outcome.results] == ["p"]


def test_a_repeated_query_is_answered_from_the_cache_until_its_namespace_changes(
    stores: Stores,
) -> None:
    cache: QueryCache[SearchOutcome] = QueryCache(
        size=8, seconds=60, max_bytes=10**6, weigh=lambda o: o.weight
    )
    stores.memory.indexes.on_change = cache.invalidate
    searcher = stores.searcher(cache=cache)
    stores.memory.writer.write([make_entry("a", "postgres chosen for billing", "A")])
    first = searcher.search(query("postgres billing"))
    calls = len(stores.embedder.calls)
    again = searcher.search(dataclasses.replace(query("postgres billing")))
    assert again.cached and not first.cached and len(stores.embedder.calls) == calls
    assert again.results is first.results and again.stages == {}
    # A write elsewhere keeps it; a write to the namespace drops it.
    stores.memory.writer.write(
        [make_entry("x", "postgres billing elsewhere", "A", namespace="other")]
    )
    assert searcher.search(query("postgres billing")).results is first.results
    stores.memory.writer.write([make_entry("b", "postgres billing replica", "A")])
    fresh = searcher.search(query("postgres billing"))
    assert {r.entry.id for r in fresh.results} == {"a", "b"}
    stores.memory.lifecycle.delete(["ns:b"])
    assert {r.entry.id for r in searcher.search(query("postgres billing")).results} == {"a"}


def test_a_passage_embedded_at_query_time_is_kept_for_the_next_search(stores: Stores) -> None:
    stores.memory.writer.write(
        [make_entry(f"log{n}", f"kubernetes upgrade step {n}", "E") for n in range(3)]
    )
    calls = embeddings_of(stores)
    searcher = stores.searcher(**MEASURED)
    first = searcher.search(query("kubernetes upgrade"))
    second = searcher.search(query("upgrade kubernetes step"))
    assert [len(c) for c in calls] == [1, 3, 1]  # the second search embeds its query alone
    scores = {r.entry.id: r.relevance for r in first.results}
    assert scores and all(s is not None for s in scores.values())
    assert {r.entry.id for r in second.results} == set(scores)


def test_learned_fusion_embeds_nothing_but_the_query(stores: Stores) -> None:
    stores.memory.writer.write(
        [make_entry(f"log{n}", f"kubernetes upgrade step {n}", "E") for n in range(3)]
        + [make_entry("fact", "the kubernetes cluster runs in Frankfurt", "A")]
    )
    calls = embeddings_of(stores)
    outcome = stores.searcher().search(query("kubernetes upgrade step", explain=True))
    assert calls == [["kubernetes upgrade step"]]
    ids = [r.entry.id for r in outcome.results]
    # The logs hold every word of the question; the fact, embedded, only one.
    assert ids[-1] == "fact" and set(ids[:3]) == {"log0", "log1", "log2"}
    best = outcome.results[0]
    assert best.explain is not None and "model.keyword" in best.explain
    assert best.relevance == best.score and 0 < best.score < 1
