"""The context benchmark's pure parts: the naive block within its budget, when evidence is
inside a block, the order of a question's calls and the figures."""

from __future__ import annotations

from bench.context.blocks import Hit, Inside, Shown, holds_cut, holds_whole, inside, naive_block
from bench.context.runs import call_order, relevant_texts
from bench.context.scores import BlockTally, CallTally, score_block, score_calls
from service.domain.tokens import CharacterTokens
from service.evaluation.beir import Doc

COUNTER = CharacterTokens()
"""One token per character that is not white space: easy to count by hand."""


def test_the_naive_block_holds_whole_lines_best_first_within_the_budget() -> None:
    hits = [Hit("a", "one two"), Hit("b", "three"), Hit("c", "four five six")]
    # "- one two" is 7 tokens, "- three" 6, "- four five six" 13.
    block = naive_block(hits, COUNTER, 13)
    assert block.text == "- one two\n- three"
    assert block.tokens == 13
    assert block.ids == ["a", "b"]


def test_the_naive_block_stops_at_the_first_text_that_does_not_fit() -> None:
    hits = [Hit("a", "one"), Hit("b", "a very long text indeed"), Hit("c", "x")]
    block = naive_block(hits, COUNTER, 10)
    # "c" would still fit, but the block is the best results in order: it ends at "b".
    assert block.ids == ["a"]
    assert block.tokens == COUNTER.count([block.text])[0] <= 10


def test_the_naive_block_puts_each_text_on_one_line_and_skips_repeats_and_blanks() -> None:
    hits = [Hit("a", "line one\n\n  line two "), Hit("a", "again"), Hit("b", "  "), Hit("c", "z")]
    block = naive_block(hits, COUNTER, 100)
    assert block.text == "- line one line two\n- z"
    assert block.ids == ["a", "c"]


def test_a_naive_block_too_small_for_the_best_text_is_empty() -> None:
    block = naive_block([Hit("a", "far too long for two tokens")], COUNTER, 2)
    assert (block.text, block.tokens, block.ids) == ("", 0, [])


def test_a_whole_text_is_inside_when_the_block_holds_it_on_one_line() -> None:
    block = "### Memory\n- [d1 A 2026-01-02] We chose Postgres. It has partitions."
    assert holds_whole(block, "We chose Postgres.\nIt has partitions.")
    assert not holds_whole(block, "We chose Postgres. It has no partitions.")
    assert not holds_whole(block, "  ")


def test_a_cut_entry_holds_its_document_when_its_text_is_part_of_the_document() -> None:
    text = "First sentence. Second sentence. Third sentence."
    entries = [Shown("d1", "… Second sentence. …")]
    assert holds_cut("d1", text, entries)
    # The shown text must come from that document, under that document's id.
    assert not holds_cut("d2", text, entries)
    assert not holds_cut("d1", text, [Shown("d1", "… Second sentence, rewritten. …")])
    # Only the marks shown: nothing of the document is there.
    assert not holds_cut("d1", text, [Shown("d1", "…")])


def test_inside_tells_whole_documents_from_those_only_cut() -> None:
    relevant = {
        "d1": "Alpha is here.",
        "d2": "Beta one. Beta two. Beta three.",
        "d3": "Gamma is absent.",
    }
    block = "### Memory\n- [d1 A] Alpha is here.\n- [d2 A] … Beta two. …"
    entries = [Shown("d1", "Alpha is here."), Shown("d2", "… Beta two. …")]
    found = inside(block, relevant, entries)
    assert found.whole == {"d1"}
    assert found.cut == {"d2"}
    assert found.held == {"d1", "d2"}
    # The naive block has no entries: only whole texts count.
    assert inside(block, relevant).held == {"d1"}


def test_relevant_texts_are_the_stored_texts_of_documents_graded_above_zero() -> None:
    docs = {
        "c:1": Doc("c_1", "c:1", "ADR 1", "Use queues.", {}),
        "c:2": Doc("c_2", "c:2", "", "Not relevant.", {}),
    }
    texts = relevant_texts(docs, {"c:1": 1, "c:2": 0, "c:missing": 1}, "A", "bench")
    assert texts == {"c_1": "ADR 1: Use queues."}


def test_each_kind_of_call_comes_first_equally_often() -> None:
    kinds = ["retrieve", "context@256", "context@512"]
    orders = [call_order(n, kinds) for n in range(6)]
    assert orders[0] == kinds
    assert orders[1] == ["context@256", "context@512", "retrieve"]
    assert sorted(o[0] for o in orders) == sorted(kinds * 2)
    assert all(sorted(o) == sorted(kinds) for o in orders)


def test_block_figures_count_questions_with_any_and_with_all_evidence() -> None:
    tally = BlockTally()
    tally.note(Inside(frozenset({"a"}), frozenset()), 2, 100, 3, 256)
    tally.note(Inside(frozenset(), frozenset({"b"})), 1, 200, 4, 256)
    tally.note(Inside(frozenset(), frozenset()), 1, 300, 5, 256)
    scored = score_block(tally)
    assert scored["questions"] == 3
    assert scored["evidence_inside"] == 2 / 3
    assert scored["all_evidence_inside"] == 1 / 3
    assert scored["inside_only_cut"] == 1 / 3
    assert scored["mean_tokens"] == 200
    assert scored["mean_entries"] == 4
    assert scored["over_budget"] == 1


def test_call_figures_set_each_p50_against_retrieves_and_split_by_embedding() -> None:
    calls = {
        "retrieve": CallTally([10.0, 20.0, 30.0], [1, 0, 0], [5]),
        "context@256": CallTally([15.0, 30.0, 45.0], [0, 1, None], [7]),
    }
    scored = score_calls(calls)
    assert scored["retrieve"]["p50_vs_retrieve"] == 1.0
    assert scored["context@256"]["p50_vs_retrieve"] == 1.5
    assert scored["context@256"]["p50_ms_embedding"] == 30.0
    assert scored["context@256"]["p50_ms_vector_kept"] == 15.0
    assert scored["context@256"]["model_calls_per_call"] == 0.5
    assert scored["retrieve"]["query_tokens_per_call"] == 5


def test_the_load_run_times_a_retrieve_and_a_context_call_at_each_budget() -> None:
    from bench.context.load import calls, ratios
    from bench.load.queries import Query

    made = {
        name: call(Query("why postgres", "load-20000-core", "A")) for name, call in calls().items()
    }
    assert list(made) == ["retrieve", "context at 256", "context at 512", "context at 1024"]
    assert made["retrieve"] == (
        "/v1/retrieve",
        {"question": "why postgres", "namespace": "load-20000-core", "top_n": 10},
    )
    assert made["context at 512"][1]["max_tokens"] == 512
    measured = ratios({"retrieve": [0.01, 0.02, 0.03], "context at 256": [0.03, 0.04, 0.05]})
    assert measured == {"retrieve": (20.0, 1.0), "context at 256": (40.0, 2.0)}
