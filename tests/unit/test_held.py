"""The terms of entry texts: read in one pass as word by word, and kept for the texts read
last, within a bound of characters."""

from __future__ import annotations

import re
import string

from hypothesis import example, given
from hypothesis import strategies as st

from service.domain.search.held import HeldTerms
from service.domain.search.snippets import FEW_TERMS, best_chunk, query_terms, snippet
from service.domain.text import STOPWORDS, content_terms, stems


@given(st.lists(st.text(max_size=80), max_size=40))
def test_the_terms_are_those_of_the_text_read_again_or_not(texts: list[str]) -> None:
    held = HeldTerms(chars=200)
    for text in [*texts, *texts]:
        found = held.of(text)
        assert found.terms == content_terms(text)
        assert found.stems == stems(content_terms(text))
        assert held.chars <= 200


def test_the_texts_kept_never_hold_more_than_the_bound() -> None:
    held = HeldTerms(chars=10_000)
    for n in range(1_000):
        held.of(f"entry {n} holds the words billing, Postgres and {n * 7}")
        assert held.chars <= 10_000
    assert held.chars > 9_000


def test_a_long_text_is_read_but_not_kept() -> None:
    held = HeldTerms(chars=10_000)
    assert held.of("billing " * 200).terms == {"billing"}
    assert held.chars == 0
    held.of("billing database")
    assert held.chars == len("billing database")


_WORD = re.compile(r"\w+")


@given(
    st.text(alphabet=string.printable)
    | st.text(alphabet=st.sampled_from("aB3_ zZ.İi-ßΣς\tq"))
    | st.text(max_size=60)
)
def test_word_sets_read_in_one_pass_are_those_read_word_by_word(text: str) -> None:
    words = _WORD.findall(text)
    assert query_terms(text) == {w.lower() for w in words if len(w) > 2}
    lowered = {w.lower() for w in words}
    assert content_terms(text) == {w for w in lowered if len(w) > 2} - STOPWORDS


def _best_chunk_word_by_word(chunks: list[str], terms: set[str]) -> int:
    overlaps = [len(terms & {w.lower() for w in _WORD.findall(c) if len(w) > 2}) for c in chunks]
    return overlaps.index(max(overlaps)) if chunks else 0


def _snippet_word_by_word(text: str, terms: set[str], width: int) -> str:
    if len(text) <= width:
        return text
    start = 0
    found = [m.start() for m in _WORD.finditer(text) if m.group().lower() in terms]
    if found:
        start = max(0, found[0] - width // 4)
        space = text.rfind(" ", max(0, start - 40), start + 1)
        start = space + 1 if space >= 0 and start else start
    window = text[start : start + width]
    if start + width < len(text):
        window = window.rsplit(" ", 1)[0] + " …"
    return ("… " if start else "") + window


MANY_TERMS = {f"zq{n:02}" for n in range(FEW_TERMS + 1)}
"""Terms no text holds, past ``FEW_TERMS``."""
TEXTS = st.text(alphabet=st.sampled_from(list("aab  b.A_")), max_size=60)
"""Few letters, so that terms stand inside longer words and beside one another."""


@given(st.lists(TEXTS, min_size=1, max_size=4), TEXTS)
@example(["baab", "aab"], "aab")
@example(["aabb", "aab"], "aab")
@example(["x" * 30 + " baab aab", "b"], "aab")
@example(["x" * 30 + " aabb aab", "b"], "aab")
def test_the_best_chunk_and_the_snippet_are_those_found_word_by_word(
    chunks: list[str], question: str
) -> None:
    # Few terms are found by one expression, many by the chunk's words: both as word by word.
    for terms in (query_terms(question), query_terms(question) | MANY_TERMS):
        assert best_chunk(chunks, terms) == _best_chunk_word_by_word(chunks, terms)
        for text in (" ".join(chunks) * 10, " ".join(chunks) * 10 + "é"):
            assert snippet(text, terms, 20) == _snippet_word_by_word(text, terms, 20)
