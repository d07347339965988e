"""The console marks the words a query matched: a word is looked up by its prefix, and
finds the terms the rough stem guess would, term by term."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from service.domain.text import STOPWORDS
from service.ui.marks import SHORTEST_STEM, STEM_SLACK, matches


def _matches_term_by_term(word: str, terms: set[str]) -> bool:
    word = word.lower()
    if word in STOPWORDS:
        return False
    if word in terms:
        return True
    for term in terms:
        common = 0
        while common < min(len(word), len(term)) and word[common] == term[common]:
            common += 1
        if common >= SHORTEST_STEM and common >= max(len(word), len(term)) - STEM_SLACK:
            return True
    return False


WORDS = st.text(alphabet="abAB", min_size=0, max_size=10)


@given(WORDS, st.sets(st.text(alphabet="ab", min_size=1, max_size=10), max_size=8))
@example("allergic", {"allergy"})
@example("others", {"other"})
@example("abab", {"ababbbb"})
@example("ababbbb", {"abab"})
def test_a_word_matches_as_it_does_term_by_term(word: str, terms: set[str]) -> None:
    assert matches(word, terms) == _matches_term_by_term(word, terms)
