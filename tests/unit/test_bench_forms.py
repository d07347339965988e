"""The quality benchmark's figures by question form and its floor check: pure scoring."""

from __future__ import annotations

import math
from typing import Any

import pytest

from bench.quality.floor import corpus_namespaces, elsewhere, score_floor
from bench.quality.forms import (
    ALL_DECISION,
    NOTHING,
    OTHER,
    entry_kind,
    form_groups,
    rank1_misses,
    rank_figures,
)
from bench.quality.runs import ModeRun
from bench.quality.scores import score_forms
from service.evaluation.beir import Doc, Query


def ask(qid: str, form: str | None = None, namespace: str = "ns-a") -> Query:
    meta = {"namespace": namespace, **({"form": form} if form else {})}
    return Query(qid, f"question {qid}", namespace, meta)


QRELS = {"w1": {"d1": 1}, "p1": {"d2": 1}, "l1": {"c1": 1, "c2": 1}, "w2": {"d3": 1}}
RANKINGS = {"w1": ["d1", "x"], "p1": ["x", "y", "d2"], "l1": ["c2"], "w2": ["x", "y", "z", "d3"]}


def test_queries_are_grouped_by_form_with_the_decision_forms_together() -> None:
    queries = [ask("w1", "worded"), ask("l1", "log"), ask("p1", "plain"), ask("w2", "worded")]
    assert form_groups(queries) == {
        "worded": ["w1", "w2"],
        "plain": ["p1"],
        ALL_DECISION: ["w1", "p1", "w2"],
        "log": ["l1"],
    }


def test_a_set_without_forms_has_no_groups_and_a_query_without_one_is_unset() -> None:
    assert form_groups([ask("w1"), ask("p1")]) == {}
    assert form_groups([ask("w1", "worded"), ask("q")]) == {"worded": ["w1"], "unset": ["q"]}


def test_rank_1_top_3_and_mrr_over_a_group() -> None:
    figures = rank_figures(RANKINGS, QRELS, ["w1", "p1", "w2"])
    assert figures["rank1"] == pytest.approx(1 / 3)
    assert figures["top3"] == pytest.approx(2 / 3)
    assert figures["mrr@10"] == pytest.approx((1 + 1 / 3 + 1 / 4) / 3)
    assert figures["queries"] == 3


def test_any_relevant_document_counts_at_rank_1_and_unasked_queries_are_left_out() -> None:
    assert rank_figures(RANKINGS, QRELS, ["l1", "never-asked"]) == {
        "rank1": 1.0,
        "top3": 1.0,
        "mrr@10": 1.0,
        "queries": 1,
    }
    assert math.isnan(rank_figures(RANKINGS, QRELS, ["never-asked"])["rank1"])


def test_an_entry_is_counted_by_its_type() -> None:
    assert [entry_kind(t) for t in ("decision", "discussion", "commit")] == [
        "decision",
        "discussion",
        "commit",
    ]
    assert entry_kind(None) == entry_kind("note") == OTHER


def test_misses_count_what_held_rank_1_and_searches_that_found_nothing() -> None:
    rankings = {**RANKINGS, "w3": []}
    qrels = {**QRELS, "w3": {"d4": 1}}
    kinds = {"w1": "decision", "p1": "discussion", "l1": "commit", "w2": "commit"}
    misses = rank1_misses(rankings, kinds, qrels, ["w1", "p1", "w2", "w3", "l1"])
    assert misses == {"decision": 0, "discussion": 1, "commit": 1, OTHER: 0, NOTHING: 1}


def hit(entry_id: str, entry_type: str | None) -> dict[str, Any]:
    return {"id": entry_id, "tier": "A", "type": entry_type}


def test_a_pass_notes_rankings_first_kinds_and_the_floor_s_count() -> None:
    run = ModeRun()
    hits = [hit("svc-1", "discussion"), hit("svc-1", "discussion"), hit("svc-2", "decision")]
    run.note("q1", {"took_ms": 3.0, "dropped": 4}, hits, {"svc-1": "doc:1"})
    run.note("q2", {"took_ms": 2.0}, [], {})
    assert run.rankings == {"q1": ["doc:1", "svc-2"], "q2": []}
    assert run.first_kinds == {"q1": "discussion"}
    assert (run.returned, run.dropped, run.took_ms) == ([3, 0], [4], [3.0, 2.0])


def test_endpoints_are_scored_per_group() -> None:
    every = ModeRun(rankings=RANKINGS, first_kinds={"p1": "discussion", "w2": "commit"})
    tier_a = ModeRun(rankings={q: ["d1", "d2", "d3"] for q in RANKINGS})
    groups = {"worded": ["w1", "w2"], "plain": ["p1"]}
    scored = score_forms({"every": every, "tier A": tier_a}, QRELS, groups)
    assert scored["queries"] == {"worded": 2, "plain": 1}
    assert scored["endpoints"]["every"]["worded"]["rank1"] == 0.5
    assert scored["endpoints"]["tier A"]["plain"]["mrr@10"] == 0.5
    assert scored["rank1_misses"]["every"]["plain"]["discussion"] == 1
    assert scored["rank1_misses"]["every"]["worded"]["commit"] == 1


def test_question_i_is_asked_in_the_foreign_namespace_i_mod_n() -> None:
    queries = [ask(f"q{i}", "worded") for i in range(5)]
    moved = elsewhere(queries, ["conv-1", "conv-2"])
    assert [q.namespace for q in moved] == ["conv-1", "conv-2", "conv-1", "conv-2", "conv-1"]
    assert [(q.id, q.text, q.metadata) for q in moved] == [
        (q.id, q.text, q.metadata) for q in queries
    ]
    with pytest.raises(ValueError):
        elsewhere(queries, [])


def test_a_foreign_set_s_namespaces_are_sorted_and_a_row_without_one_is_default() -> None:
    docs = [
        Doc(f"d{i}", f"d{i}", "", "text", {"namespace": ns} if ns else {})
        for i, ns in enumerate(["conv-2", "conv-1", None, "conv-2"])
    ]
    assert corpus_namespaces(docs) == ["conv-1", "conv-2", "default"]


def test_the_floor_counts_empty_answers_and_weak_ones() -> None:
    search = ModeRun(returned=[0, 3, 0, 1])
    retrieve = ModeRun(returned=[0, 2, 2, 2], strong=[False, False, True, False])
    floor = score_floor(search, retrieve)
    assert floor["questions"] == 4
    assert floor["search_empty"] == 0.5
    assert floor["search_results_mean"] == 1.0
    assert (floor["search_dropped_mean"], floor["search_dropped_reported"]) == (None, 0)
    assert (floor["retrieve_weak"], floor["retrieve_empty"]) == (0.75, 0.25)


def test_the_floor_reports_dropped_when_the_service_does_and_no_retrieve_when_absent() -> None:
    floor = score_floor(ModeRun(returned=[0, 1], dropped=[12, 8]), None)
    assert (floor["search_dropped_mean"], floor["search_dropped_reported"]) == (10.0, 2)
    assert floor["retrieve_weak"] is None and floor["retrieve_empty"] is None
