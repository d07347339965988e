"""The context block: within its budget whatever it is given, cited, without replaced
entries, repeats folded, long entries cut around their best passage."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas import wire
from service.application.context import considered, pool_size
from service.domain.answers.context import NOTHING, SECTIONS, Source, assemble, citation
from service.domain.answers.excerpts import SCAN_WORDS, excerpt, more_words
from service.domain.answers.folding import fold
from service.domain.search.snippets import SCAN_CHARS
from service.domain.text import READ_CHARS
from service.domain.tokens import CharacterTokens, ModelTokens, TokenCounter, words
from tests.fakes import FakeEmbedder

DAY = 86_400
HEADING = re.compile(r"(?:### )?(Decisions and facts|Discussions|Logs)(?: \((\d{4})\))?:?")
WORDS = ["ledger", "postgres", "billing", "deploy", "tuesday", "alice", "cache", "redis"]


def words_counter() -> ModelTokens:
    """The fake model's tokenizer (a token a word), as the service reaches a model's."""
    return ModelTokens(FakeEmbedder().count_tokens)


class Recording:
    """A token counter that keeps every text it was asked to count."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.counted: list[str] = []

    def count(self, texts: Sequence[str]) -> list[int]:
        self.counted.extend(texts)
        return self.counter.count(texts)


def entry(
    n: int, text: str, *, speaker: str | None = None, replaces: tuple[str, ...] = ()
) -> Source:
    return Source(f"e-{n}", "A", 1_700_000_000.0 + n * DAY, speaker, text, replaces)


sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(
    lambda ws: " ".join(ws).capitalize() + "."
)
text = st.lists(sentence, min_size=1, max_size=40).map(" ".join)
speaker = st.sampled_from([None, "alice", "bob"])


@st.composite
def sources(draw: st.DrawFn) -> list[Source]:
    texts = draw(st.lists(text, max_size=8))
    made = [
        Source(
            f"e-{n}",
            draw(st.sampled_from(["A", "C", "E"])),
            draw(st.sampled_from([1.7e9, 1.75e9])) + n,  # 2023 or 2025
            draw(speaker),
            t,
            score=draw(st.sampled_from([0.0, 0.5, 1.0])),
        )
        for n, t in enumerate(texts)
    ]
    if len(made) >= 2 and draw(st.booleans()):
        # the first replaces another one, which the answer still holds
        old = draw(st.integers(1, len(made) - 1))
        made[0] = Source(**{**made[0].__dict__, "replaces": (made[old].id,)})
    return made


@settings(max_examples=300, deadline=None)
@given(
    found=sources(),
    patterns=st.lists(text, max_size=3),
    budget=st.integers(0, 400),
    style=st.sampled_from(["markdown", "text"]),
    by_character=st.booleans(),
)
def test_the_block_never_exceeds_its_budget_and_cites_what_it_holds(
    found: list[Source], patterns: list[str], budget: int, style: str, by_character: bool
) -> None:
    counter = CharacterTokens() if by_character else words_counter()
    offered = [Source(f"p-{n}", "A", 1.7e9, None, t) for n, t in enumerate(patterns)]
    block = assemble("where is the billing ledger?", found, offered, counter, budget, style)  # type: ignore[arg-type]
    assert counter.count([block.text])[0] == block.tokens <= budget
    replaced = {r for s in found for r in s.replaces}
    shown = [i.source.id for i in [*block.entries, *block.patterns]]
    for item in [*block.entries, *block.patterns]:
        assert item.citation in block.text
        assert item.citation.startswith(f"[{item.source.id} ")
    # Each entry under its tier's heading, each heading once; the year in the headings when
    # every entry has it, else in each date.
    headings = [HEADING.fullmatch(line) for line in block.text.splitlines()]
    named = [h.group(1) for h in headings if h]
    assert len(named) == len(set(named)) == len({i.source.tier for i in block.entries})
    section, year, under = "", None, []
    for line in block.text.splitlines() if block.entries else []:
        if line.removeprefix("### ").removesuffix(":") == "Reasoning patterns":
            break
        if heading := HEADING.fullmatch(line):
            section, year = heading.group(1), heading.group(2)
        elif line:
            cited = [i for i in block.entries if line.removeprefix("- ").startswith(i.citation)]
            assert len(cited) == 1 and SECTIONS[cited[0].source.tier] == section
            shown_year = datetime.fromtimestamp(cited[0].source.timestamp, UTC).year
            assert (f" {shown_year}" in cited[0].citation) is (year is None)
            assert year is None or int(year) == shown_year
            under.append(cited[0])
    assert sorted(under, key=block.entries.index) == block.entries
    # Shown best score first, in the order offered among equal scores.
    order = [(-i.source.score, found.index(i.source)) for i in block.entries]
    assert order == sorted(order)
    for old in replaced:
        assert old not in shown
        assert f"[{old} ·" not in block.text
    for item in block.entries:
        if item.source.replaces:
            assert f"replaces {', '.join(item.source.replaces)}" in block.text
    assert block.nothing_relevant is (not found)
    offered_ids = {s.id for s in found} - replaced
    folded = {f for i in block.entries for f in i.folded}
    assert {i.source.id for i in block.entries} | folded | set(block.left_out) == offered_ids


def test_an_entry_longer_than_the_budget_is_cut_around_its_best_passage() -> None:
    filler = " ".join(f"Filler sentence {n} about nothing much." for n in range(60))
    later = " ".join(f"Closing remark {n} of the meeting." for n in range(60))
    long = f"{filler} The billing ledger lives in Postgres since May. {later}"
    counter = Recording(words_counter())
    block = assemble("where is the billing ledger?", [entry(1, long)], [], counter, 64)
    (item,) = block.entries
    assert long not in counter.counted  # never counted whole
    assert block.tokens <= 64 and item.cut
    assert "The billing ledger lives in Postgres since May." in item.text
    assert item.text.startswith("… ") and item.text.endswith(" …")
    # cut between sentences, never inside one
    inner = item.text.removeprefix("… ").removesuffix(" …")
    assert re.fullmatch(r"([A-Z][^.]*\.\s?)+", inner)


def test_a_budget_smaller_than_any_citation_gives_an_empty_block() -> None:
    counter = words_counter()
    found = [
        entry(1, "We keep the billing ledger in Postgres.", speaker="alice"),
        entry(2, "Redis caches the sessions.", speaker="bob"),
    ]
    # "- [e-1 15 Nov alice] … ledger …" is 6 tokens, and the heading 4 more.
    for budget in range(0, 10):
        block = assemble("ledger", found, [], counter, budget)
        assert block.text == "" and block.tokens == 0 and block.entries == []
        assert block.left_out == ["e-1", "e-2"] and not block.nothing_relevant
    first = assemble("ledger", found, [], counter, 10)
    assert first.text == "### Decisions and facts (2023)\n- [e-1 15 Nov alice] … ledger …"


def test_a_superseded_entry_is_never_shown_and_its_replacement_says_so() -> None:
    old = entry(1, "The billing ledger is kept in SQLite.")
    new = entry(2, "The billing ledger moved to Postgres.", replaces=("e-1",))
    block = assemble("billing ledger", [old, new], [], words_counter(), 512)
    assert [i.source.id for i in block.entries] == ["e-2"]
    assert "SQLite" not in block.text and "e-1 ·" not in block.text
    assert block.text.splitlines()[1].endswith(
        "The billing ledger moved to Postgres. (replaces e-1)"
    )


def test_nothing_relevant_says_so() -> None:
    block = assemble("who won the cup?", [], [], words_counter(), 32)
    assert block.text == f"### Memory\n{NOTHING}" and block.nothing_relevant
    assert block.entries == [] and block.tokens == words_counter().count([block.text])[0]
    plain = assemble("who won the cup?", [], [], words_counter(), 32, "text")
    assert plain.text == f"Memory:\n{NOTHING}"


def test_near_repeats_are_folded_into_the_best_ranked() -> None:
    found = [
        entry(1, "Deploys go out on Tuesdays."),
        entry(2, "Billing runs on Postgres."),
        entry(3, "Deploys go out on Tuesdays, always."),
    ]
    block = assemble("when do deploys go out?", found, [], words_counter(), 512)
    assert [(i.source.id, i.folded) for i in block.entries] == [("e-1", ("e-3",)), ("e-2", ())]
    assert "(also e-3)" in block.text and "always" not in block.text


def test_near_repeats_are_told_by_the_words_a_search_weighs() -> None:
    """Texts are compared by their first ``READ_CHARS`` characters: an entry of a megabyte
    costs what one of 20,000 characters does."""
    head = " ".join(f"word{n}" for n in range(READ_CHARS // 6))[:READ_CHARS]
    texts = [head + " tail one" * 100_000, head + " other end" * 100_000, "Something else."]
    assert [(f.kept, f.repeats) for f in fold(texts, str)] == [
        (texts[0], [texts[1]]),
        (texts[2], []),
    ]


def test_entries_come_in_the_order_given_each_on_its_own_cited_line() -> None:
    found = [
        entry(1, "We decided on Postgres.", speaker="alice"),
        entry(2, "Redis caches sessions."),
    ]
    block = assemble("what did we decide?", found, [], words_counter(), 512)
    assert block.text.splitlines() == [
        "### Decisions and facts (2023)",
        "- [e-1 15 Nov alice] We decided on Postgres.",
        "- [e-2 16 Nov] Redis caches sessions.",
    ]


def test_each_tier_is_headed_once_in_the_order_of_its_best_entry() -> None:
    found = [
        Source("run-9", "E", 1.7e9, None, "deploy 412 rolled back the ledger", score=0.9),
        Source("db-2", "A", 1.7e9, "alice", "The ledger stays in Postgres.", score=0.8),
        Source("run-8", "E", 1.7e9, None, "deploy 411 migrated the ledger", score=0.7),
        Source("talk-1", "C", 1.72e9, "bob", "Should the ledger move?", score=0.6),
    ]
    markdown = assemble("which deploy rolled back the ledger?", found, [], words_counter(), 512)
    assert markdown.text.splitlines() == [
        "### Logs",
        "- [run-9 14 Nov 2023] deploy 412 rolled back the ledger",
        "- [run-8 14 Nov 2023] deploy 411 migrated the ledger",
        "",
        "### Decisions and facts",
        "- [db-2 14 Nov 2023 alice] The ledger stays in Postgres.",
        "",
        "### Discussions",
        "- [talk-1 3 Jul 2024 bob] Should the ledger move?",
    ]
    assert [i.source.id for i in markdown.entries] == ["run-9", "db-2", "run-8", "talk-1"]
    # Entries of one year: the headings say it, the dates do not.
    text = assemble("which deploy?", found[:2], [], words_counter(), 512, "text")
    assert text.text.splitlines()[:2] == [
        "Logs (2023):",
        "[run-9 14 Nov] deploy 412 rolled back the ledger",
    ]


def test_patterns_follow_when_whole_ones_fit() -> None:
    found = [entry(1, "We decided on Postgres.")]
    pattern = Source("how", "A", 1.7e9, None, "Weigh transactions before speed.")
    roomy = assemble("which store?", found, [pattern], words_counter(), 512)
    assert roomy.text.endswith(
        "### Reasoning patterns\n- [how 14 Nov 2023] Weigh transactions before speed."
    )
    tight = assemble("which store?", found, [pattern], words_counter(), 14)
    assert tight.patterns == [] and "Reasoning patterns" not in tight.text


def test_the_budget_is_shared_so_a_long_first_entry_leaves_room_for_the_next() -> None:
    long = " ".join(f"Sentence {n} on the billing ledger." for n in range(100))
    found = [entry(1, long), entry(2, "Redis caches sessions.")]
    block = assemble("billing ledger", found, [], words_counter(), 120)
    assert [i.source.id for i in block.entries] == ["e-1", "e-2"]
    assert block.entries[0].cut and not block.entries[1].cut


def test_model_tokens_count_a_text_past_the_window_whole() -> None:
    model = FakeEmbedder(window=128)
    long = " ".join(["word"] * 1000)
    (whole,) = ModelTokens(model.count_tokens).count([long])
    assert whole == 1000
    assert model.count_tokens([long]) == [128]


def test_long_words_are_cut_to_stay_inside_a_window_after_punctuation() -> None:
    url = "https://example.org/" + "/".join(["segment"] * 40)
    cut = words(f"see {url} now")
    assert all(len(w) <= 120 for w in cut)
    assert "".join(cut) == f"see{url}now"
    assert all(w.endswith("/") for w in cut[1:-2])


def test_model_tokens_ask_the_tokenizer_once_for_each_new_word() -> None:
    model = FakeEmbedder()
    counter = ModelTokens(model.count_tokens)
    assert counter.count(["the ledger, the cache", "ledger"]) == [4, 1]
    assert counter.count(["cache the ledger again"]) == [4]
    asked = [w for call in model.token_calls for w in call if w]
    assert sorted(asked) == ["again", "cache", "ledger", "ledger,", "the"]


def test_model_tokens_forget_words_past_their_limit_and_count_alike() -> None:
    model = FakeEmbedder()
    counter = ModelTokens(model.count_tokens, kept=3)
    texts = ["one two three", "four five six seven", "one two three four"]
    assert [counter.count([t])[0] for t in texts] == [3, 4, 4]
    assert counter.count(texts) == [3, 4, 4]


def test_character_tokens_bound_any_tokenizer_from_above() -> None:
    assert CharacterTokens().count(["ab  c", "", "…"]) == [3, 0, 1]


def test_excerpt_falls_back_to_words_around_the_question_when_a_sentence_is_too_long() -> None:
    sentence = " ".join(["filler"] * 50 + ["postgres", "ledger"] + ["tail"] * 50) + "."
    cut = excerpt(sentence, {"postgres"}, 10, words_counter())
    assert cut.cut and "postgres ledger" in cut.text and cut.tokens <= 10


def test_citation_without_a_speaker_has_three_parts() -> None:
    assert citation(entry(0, "x")) == "[e-0 14 Nov 2023]"
    assert citation(entry(0, "x", speaker="bob")) == "[e-0 14 Nov 2023 bob]"


def test_the_least_relevant_are_left_out_first_and_those_kept_shown_by_score() -> None:
    # Offered most relevant first; the answer's scores order what is shown.
    found = [
        Source("e-1", "A", 1.7e9, None, "Billing runs on Postgres.", score=0.2),
        Source("e-2", "A", 1.7e9, None, "We decided billing keeps invoices.", score=0.9),
        Source("e-3", "A", 1.7e9, None, "Redis caches the billing sessions nightly.", score=0.95),
    ]
    # The heading is a word, "[e-1 A 2023-11-14]" six, e-1's text four and e-2's five.
    block = assemble("billing", found, [], words_counter(), 22)
    assert [i.source.id for i in block.entries] == ["e-2", "e-1"]
    assert block.left_out == ["e-3"] and not any(i.cut for i in block.entries)


def test_entries_considered_grow_with_the_budget_unless_the_caller_sets_them() -> None:
    assert [considered(n, None) for n in (32, 256, 512, 1024, 4096)] == [10, 10, 21, 42, 50]
    assert considered(4096, 5) == 5 and considered(32, 30) == 30


def test_entries_are_chosen_from_twice_as_many_results_within_a_retrieve_and_fifty() -> None:
    def pool(max_tokens: int, max_entries: int | None = None) -> int:
        asked = wire.ContextRequest(question="q", max_tokens=max_tokens, max_entries=max_entries)
        return pool_size(asked)

    assert [pool(n) for n in (32, 256, 512, 1024, 4096)] == [30, 30, 42, 50, 50]
    assert pool(4096, 5) == 30 and pool(32, 24) == 48 and pool(32, 50) == 50


def test_the_most_relevant_entry_is_given_up_to_half_of_the_budget() -> None:
    counter = words_counter()
    long = [
        entry(n, " ".join(f"Item {n}x{m} of the billing ledger." for m in range(100)))
        for n in range(1, 6)
    ]
    block = assemble("billing ledger", long, [], counter, 200)
    first, *others = block.entries
    assert first.source.id == "e-1" and first.cut and len(others) >= 3
    # The room is 196 tokens (the heading takes 4); the first line's citation is 4 of its
    # half, and the others' fair shares may leave it less than a token each.
    (shown,) = counter.count([first.text])
    assert 98 - 4 - 6 <= shown <= 98 - 4 + len(others)
    assert all(counter.count([o.text])[0] < shown for o in others)


def test_a_sentence_longer_than_the_allowance_is_never_counted_whole() -> None:
    """An entry of one sentence of a million characters costs what its excerpt shows: no
    sentence of more words than the allowance has tokens is counted, and the words near the
    question's term are counted, not the rest."""
    sentence = " ".join(["filler"] * 150_000 + ["postgres", "ledger"] + ["tail"] * 10) + "."
    text = "Billing moved. " + sentence
    recording = Recording(words_counter())
    cut = excerpt(text, {"postgres", "billing"}, 40, recording, whole=(text, 10**6))
    assert cut.cut and "Billing moved." in cut.text and cut.tokens <= 40
    assert max(len(t) for t in recording.counted) < 2_000


def test_a_term_past_the_first_words_of_a_long_sentence_is_not_looked_for() -> None:
    sentence = " ".join(["filler"] * (SCAN_WORDS + 10) + ["postgres", "ledger"]) + "."
    cut = excerpt(sentence, {"postgres"}, 10, words_counter())
    assert cut.cut and cut.text.startswith("filler") and cut.tokens <= 10


@given(st.text(st.sampled_from("ab \n\t"), max_size=40), st.integers(0, 12))
def test_more_words_says_whether_a_text_has_more_words_than_a_number(text: str, most: int) -> None:
    assert more_words(text, most) == (len(text.split()) > most)


def test_a_passage_past_the_first_characters_of_a_long_entry_is_not_looked_for() -> None:
    """A long entry's excerpt is chosen among the sentences of its first ``SCAN_CHARS``
    characters, as a search's snippet is: what follows is marked as left out."""
    filler = "Filler sentence here. " * (SCAN_CHARS // 22 + 10)
    text = "Billing runs on the ledger. " + filler + "Postgres holds the ledger now."
    cut = excerpt(text, {"postgres", "ledger"}, 12, words_counter(), whole=(text, 10**6))
    assert cut.text.startswith("Billing runs on the ledger.") and cut.text.endswith("…")
    assert "Postgres" not in cut.text and cut.cut and cut.tokens <= 12
