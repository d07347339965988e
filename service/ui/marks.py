"""The words of a text a query matched, marked for the page.

The text is cut into words and the rest, each piece escaped on its own, and only then are
matched words wrapped in ``<mark>``: nothing the text holds is ever read as markup. Function
words ("the", "of", "which") are never marked: they are in every text, and match nothing a
query is about.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

from service.domain.answers.confidence import STOPWORDS, content_terms

_WORD = re.compile(r"\w+")
STEM_SLACK = 3
"""Letters a word may differ by at its end and still count as the term (BM25 stems
"allergic" and "allergy" alike; this is the page's rougher guess at it)."""
SHORTEST_STEM = 4


def matches(word: str, terms: set[str]) -> bool:
    """Whether ``word`` is a query term, or shares its stem by a rough guess: the two
    agree on all but their last few letters, and on at least four. A function word never
    is ("other" is not "others")."""
    word = word.lower()
    if word in STOPWORDS:
        return False
    if word in terms:
        return True
    for term in terms:
        common = len(_common_prefix(word, term))
        if common >= SHORTEST_STEM and common >= max(len(word), len(term)) - STEM_SLACK:
            return True
    return False


def marked(text: str, query: str) -> Markup:
    """``text`` escaped, with the words matching the content words of ``query`` in
    ``<mark>``."""
    terms = content_terms(query)
    pieces: list[str] = []
    last = 0
    for found in _WORD.finditer(text):
        pieces.append(escape(text[last : found.start()]))
        word = escape(found.group())
        hit = matches(found.group(), terms)
        pieces.append(Markup("<mark>{}</mark>").format(word) if hit else word)
        last = found.end()
    pieces.append(escape(text[last:]))
    return Markup("").join(pieces)


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]
