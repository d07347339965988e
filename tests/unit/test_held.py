"""The terms of entry texts: read in one pass as word by word, and kept for the texts read
last, within a bound of characters."""

from __future__ import annotations

import re
import string

from hypothesis import given
from hypothesis import strategies as st

from service.domain.answers.confidence import STOPWORDS, content_terms, stems
from service.domain.search.held import HeldTerms
from service.domain.search.snippets import query_terms


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
