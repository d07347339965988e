"""The benchmarks' pure logic: variants of the settings, cost per search, ratios, metrics."""

from __future__ import annotations

import math
import random

import pytest

from bench import cost, walks
from bench.common import search_fields
from bench.ingest import report, tier_e_events
from bench.load.report import model_tokens
from bench.profile import generated, ratios
from bench.quality.metrics import hit_at_k, mrr_at_k, ndcg_at_k, recall_at_k
from bench.quality.runs import CostRun, search_payload
from bench.quality.scores import score_cost, with_ratios
from bench.quality.servers import SERVED, Variant, parse_variant
from bench.revisions import corpus
from bench.side_by_side import report as side_report
from bench.side_by_side.__main__ import parse_args as side_args
from bench.side_by_side.strata import HITS, label
from bench.unseen_words import few_of, random_words, reordered
from service.evaluation.beir import Query


def test_a_variant_names_settings_and_gets_their_prefix() -> None:
    assert parse_variant("few:UNEMBEDDED_CANDIDATES=3,STRATA_FUSION=rrf") == Variant(
        "few", {"STRATA_UNEMBEDDED_CANDIDATES": "3", "STRATA_FUSION": "rrf"}
    )


def test_a_json_value_keeps_its_commas() -> None:
    variant = parse_variant('w:TIER_WEIGHTS={"A":1.0,"C":0.8,"E":0.5},MMR_LAMBDA=0.7')
    assert variant.env == {
        "STRATA_TIER_WEIGHTS": '{"A":1.0,"C":0.8,"E":0.5}',
        "STRATA_MMR_LAMBDA": "0.7",
    }


def test_a_variant_without_settings_is_the_base_again() -> None:
    assert parse_variant("again:") == Variant("again", {})


@pytest.mark.parametrize("text", ["no-colon", ":X=1", "bad name:X=1", "v:X", "v:1X=2"])
def test_malformed_variants_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_variant(text)


def test_served_services_answer_nothing_from_the_outcome_cache() -> None:
    assert SERVED["STRATA_QUERY_CACHE_SIZE"] == "0"


def test_default_mode_sends_neither_mode_nor_rerank() -> None:
    assert search_fields("default", 10) == {"limit": 10}
    assert search_fields("hybrid+rerank", 10) == {"mode": "hybrid", "rerank": True, "limit": 10}


STATS = {
    "read_time": {
        "since": "2027-01-15T08:00:00Z",
        "queries": {"calls": 4, "texts": 4, "tokens": 40},
        "passages": {"calls": 2, "texts": 9, "tokens": 300},
    }
}


def test_model_work_is_read_from_the_stats() -> None:
    queries, passages = cost.model_work(STATS)
    assert queries == {"calls": 4, "texts": 4, "tokens": 40}
    assert passages == {"calls": 2, "texts": 9, "tokens": 300}


def test_model_work_is_none_where_the_stats_lack_it() -> None:
    assert cost.model_work({"totals": {}}) == (None, None)
    assert cost.model_work(None) == (None, None)
    hidden = {"read_time": {**STATS["read_time"], "queries": None}}
    assert cost.model_work(hidden)[0] is None


def reading(cpu: float | None, calls: int, tokens: int, passages: int) -> cost.Reading:
    return cost.Reading(
        cpu,
        {"calls": calls, "texts": calls, "tokens": tokens},
        {"calls": passages, "texts": 3 * passages, "tokens": 50 * passages},
    )


def test_cost_per_search_is_the_difference_of_two_readings() -> None:
    figures = cost.per_search(reading(10.0, 5, 50, 1), reading(12.5, 105, 1050, 51), 100)
    assert figures == {
        "cpu_ms_per_search": pytest.approx(25.0),
        "model_calls_per_search": 1.5,
        "query_calls_per_search": 1.0,
        "query_tokens_per_search": 10.0,
        "passage_calls_per_search": 0.5,
        "passages_per_search": 1.5,
        "passage_tokens_per_search": 25.0,
    }


def test_cost_per_search_is_none_where_a_reading_lacks_it() -> None:
    unknown = cost.Reading(None, None, None)
    figures = cost.per_search(unknown, reading(1.0, 1, 1, 1), 10)
    assert set(figures.values()) == {None}
    assert set(cost.per_search(reading(1, 1, 1, 1), reading(2, 2, 2, 2), 0).values()) == {None}


def test_a_cost_pass_scores_searches_per_second_and_work_per_search() -> None:
    run = CostRun(8, searches=200, wall_s=4.0, latencies_ms=[10.0, 30.0])
    run.before, run.after = reading(1.0, 0, 0, 0), reading(3.0, 200, 2000, 100)
    scored = score_cost(run)
    assert scored["searches_per_s"] == 50.0
    assert scored["cpu_ms_per_search"] == pytest.approx(10.0)
    assert scored["passage_tokens_per_search"] == 25.0
    assert scored["p50_ms"] == 20.0
    assert math.isnan(score_cost(CostRun(8))["searches_per_s"])


def test_each_mode_is_compared_with_bm25_mode() -> None:
    costs = {"default": {"searches_per_s": 20.0}, "bm25": {"searches_per_s": 200.0}}
    assert {m: c["vs_bm25"] for m, c in with_ratios(costs).items()} == {
        "default": 0.1,
        "bm25": 1.0,
    }
    assert with_ratios({"hybrid": {"searches_per_s": 20.0}})["hybrid"]["vs_bm25"] is None
    nan = {"bm25": {"searches_per_s": float("nan")}, "hybrid": {"searches_per_s": 1.0}}
    assert with_ratios(nan)["hybrid"]["vs_bm25"] is None


def test_a_load_cell_adds_query_and_passage_tokens() -> None:
    cell = {"query_tokens_per_search": 12.0, "passage_tokens_per_search": 280.0}
    assert model_tokens(cell) == 292.0
    assert model_tokens({"query_tokens_per_search": 12.0}) is None


RELS = {"a": 1, "b": 1}


def test_ranking_metrics() -> None:
    ranked = ["x", "a", "y", "b"]
    assert recall_at_k(ranked, RELS, 2) == 0.5
    assert mrr_at_k(ranked, RELS, 10) == 0.5
    assert hit_at_k(ranked, RELS, 1) == 0.0 and hit_at_k(ranked, RELS, 2) == 1.0
    found, ideal = 1 / math.log2(3) + 1 / math.log2(5), 1 + 1 / math.log2(3)
    assert ndcg_at_k(ranked, RELS, 10) == pytest.approx(found / ideal)
    assert ndcg_at_k(["a", "b"], RELS, 10) == pytest.approx(1.0)


def test_the_revised_decisions_corpus_is_seeded_and_every_version_differs() -> None:
    found = corpus.topics(50, 3)
    assert [t.ids for t in found] == [t.ids for t in corpus.topics(50, 3)]
    assert len({t.subject for t in found}) == 50
    assert all(2 <= len(t.options) <= 4 and len(set(t.options)) == len(t.options) for t in found)
    written = list(corpus.rounds(found, 3, supersede=True))
    assert len(written) == max(len(t.options) for t in found)
    decisions = [e for events in written for e in events if e["tier"] == "A"]
    assert len(decisions) == sum(len(t.options) for t in found)
    replaced = {old for e in decisions for old in e.get("supersedes", ())}
    assert replaced == {i for t in found for i in t.ids[:-1]}
    plain = list(corpus.rounds(found, 3, supersede=False))
    assert not any("supersedes" in e for events in plain for e in events)


def test_questions_of_a_past_moment_fall_between_two_versions() -> None:
    found = corpus.topics(50, 3)
    now, then = corpus.questions(found, 4)
    assert [q.version for q in now] == [t.revisions for t in found]
    assert all(q.as_of_round == q.version < found[q.topic].revisions for q in then)


def test_the_ingest_benchmark_sends_tier_e_log_lines_and_reports_ratios_to_the_first() -> None:
    events = tier_e_events(50)
    assert len(events) == 50 and {e["tier"] for e in events} == {"E"}
    assert len({e["id"] for e in events}) == 50
    assert events == tier_e_events(50)  # the same events every run
    figures = {
        "before": [{"events_per_s": 100.0, "cpu_us_per_event": 400.0}] * 3,
        "after": [
            {"events_per_s": 90.0, "cpu_us_per_event": 300.0},
            {"events_per_s": 120.0, "cpu_us_per_event": 360.0},
            {"events_per_s": 110.0, "cpu_us_per_event": 500.0},
        ],
    }
    table = report(figures, 9000, 500)
    assert "| before | 100 | 1.000 | 400 | 1.000 |" in table
    assert "| after | 110 | 1.100 | 360 | 0.900 |" in table


def test_unseen_words_compares_texts_of_one_size_and_one_kind_of_words() -> None:
    rng = random.Random(1)
    known = random_words(rng, 20_000)
    again = reordered(known, rng)
    assert len(known) == 20_000 and len(again) == len(known) and again != known
    assert set(again.split()[:-1]) <= set(known.split())  # the last word may be cut
    few = few_of(known, rng, distinct=50)
    assert len(few) == len(known) and set(few.split()[:-1]) <= set(known.split()[:50])


def test_a_generated_set_is_the_same_each_time_with_entries_of_the_length_asked() -> None:
    docs, questions = generated(40, 250, "p1", 12)
    again, asked = generated(40, 250, "p1", 12)
    assert [d.text for d in docs] == [d.text for d in again] and questions == asked
    lengths = [len(d.text.split()) for d in docs]
    assert len(docs) == 40 and 230 <= sum(lengths) / len(lengths) <= 280
    assert len(questions) == 12 and len(set(questions)) == 12
    assert {namespace for _, namespace in questions} == {"p1-gen-40x250"}
    short, _ = generated(40, 16, "p0", 4)
    assert all(8 <= len(d.text.split()) <= 30 for d in short)


def test_each_sets_p50_is_given_over_the_first_ones() -> None:
    cells = {
        "short": [{"mode": "hybrid", "limit": 10, "p50_ms": 10.0}],
        "long": [{"mode": "hybrid", "limit": 10, "p50_ms": 13.0}],
    }
    assert ratios(cells, "short").splitlines()[-1] == "| hybrid | 10 | 1.30x |"


def test_side_by_side_compares_ids_with_ids_and_names_whole_hits_apart() -> None:
    assert HITS == {"ids": [], "whole": None}  # fields: [] is an id and a score a hit
    assert side_args(["set"]).hits == ["ids", "whole"]
    assert (label("bm25", "ids"), label("bm25", "whole")) == ("bm25", "bm25, whole hits")
    with pytest.raises(SystemExit):
        side_args(["set", "--hits", "ids,text"])
    rows = {
        name: {"latency_ms": {"100": {"p50": p50}}}
        for name, p50 in (
            ("strata bm25", 3.0),
            ("strata bm25, whole hits", 4.0),
            ("LanceDB full-text", 2.0),
        )
    }
    assert side_report.ratios(rows, 100) == {
        "strata bm25 / LanceDB full-text": 1.5,
        "strata bm25, whole hits / LanceDB full-text": 2.0,
    }


def test_a_search_asks_for_fields_only_when_given() -> None:
    q = Query(id="q1", text="when?", namespace="conv-1")
    assert "fields" not in search_payload(q, "bm25", "p")
    assert search_payload(q, "bm25", "p", fields=[])["fields"] == []


def test_a_walk_counts_modules_stays_returns_and_the_memory_reaching_stores() -> None:
    calls = [
        walks.Call(module, "f")
        for module in (
            "edge/deps.py",
            "domain/memory/writing.py",
            "domain/memory/writing.py",
            "stores/sqlite.py",
            "domain/entries.py",
            "domain/memory/writing.py",
            "lib/fields.py",
            "stores/tantivy.py",
        )
    ]
    calls.append(walks.Call("domain/aging/digests.py", "is_digest"))
    figures = walks.summary(calls)
    assert figures["modules"] == 7
    assert figures["folders"] == 6  # domain/memory, domain/aging and domain count apart
    # writing, entries, writing, digests: four stays, one a return
    assert (figures["domain_stays"], figures["domain_returns"]) == (4, 1)
    assert figures["memory_to_stores"] == 2  # writing to sqlite, writing (through lib) to tantivy
    assert figures["vector_store_calls"] == {} and figures["digest_checks"] == 1
