"""The words of a text a query matched, marked for the page.

The text is cut into words and the rest, each piece escaped on its own, and only then are
matched words wrapped in ``<mark>``: nothing the text holds is ever read as markup. Function
words ("the", "of", "which") are never marked: they are in every text, and match nothing a
query is about.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markupsafe import Markup, escape

from service.domain.text import STOPWORDS, content_terms

_WORD = re.compile(r"\w+")
STEM_SLACK = 3
"""Letters a word may differ by at its end and still count as the term (BM25 stems
"allergic" and "allergy" alike; this is the page's rougher guess at it)."""
SHORTEST_STEM = 4


def matches(word: str, terms: set[str]) -> bool:
    """Whether ``word`` is a query term, or shares its stem by a rough guess: the two
    agree on all but their last few letters, and on at least four. A function word never
    is ("other" is not "others")."""
    return _Terms.of(frozenset(terms)).match(word)


def marked(text: str, query: str) -> Markup:
    """``text`` escaped, with the words matching the content words of ``query`` in
    ``<mark>``."""
    terms = _Terms.of(_content_terms(query))
    pieces: list[str] = []
    last = 0
    for found in _WORD.finditer(text):
        pieces.append(escape(text[last : found.start()]))
        word = escape(found.group())
        hit = terms.match(found.group())
        pieces.append(Markup("<mark>{}</mark>").format(word) if hit else word)
        last = found.end()
    pieces.append(escape(text[last:]))
    return Markup("").join(pieces)


@lru_cache(maxsize=64)
def _content_terms(query: str) -> frozenset[str]:
    return frozenset(content_terms(query))


class _Terms:
    """Query terms, each found by its prefixes of ``SHORTEST_STEM`` letters or more: a word
    matching a term by the rough guess shares with it its first ``SHORTEST_STEM`` letters,
    or all but its last ``STEM_SLACK``, whichever is more, so a word is looked up once,
    whatever the number of terms."""

    def __init__(self, terms: frozenset[str]) -> None:
        self.terms = terms
        self.by_prefix: dict[str, list[str]] = {}
        for term in terms:
            for end in range(SHORTEST_STEM, len(term) + 1):
                self.by_prefix.setdefault(term[:end], []).append(term)

    @staticmethod
    @lru_cache(maxsize=64)
    def of(terms: frozenset[str]) -> _Terms:
        return _Terms(terms)

    def match(self, word: str) -> bool:
        word = word.lower()
        if word in STOPWORDS:
            return False
        if word in self.terms:
            return True
        if len(word) < SHORTEST_STEM:
            return False
        for term in self.by_prefix.get(word[: max(SHORTEST_STEM, len(word) - STEM_SLACK)], ()):
            common = len(_common_prefix(word, term))
            if common >= SHORTEST_STEM and common >= max(len(word), len(term)) - STEM_SLACK:
                return True
        return False


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]
