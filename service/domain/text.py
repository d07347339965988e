"""The words of a text: its content words, their stems and the names it holds, read the same
way by a search, an answer and a digest."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import lru_cache

import Stemmer

_WORD = re.compile(r"\w+")
_LONG_WORD = re.compile(r"\w{3,}")
STOPWORDS = frozenset(
    """a an the and or but if of at by for with about against between into through during
    before after above below to from up down in out on off over under again further then once
    here there when where why how all any both each few more most other some such no nor not
    only own same so than too very can will just should now what which who whom whose this
    that these those am is are was were be been being have has had having do does did doing
    i me my myself we our ours ourselves you your yours yourself he him his himself she her
    hers herself it its itself they them their theirs themselves would could might must shall
    may also ever""".split()  # noqa: SIM905 (a list of words reads better as text)
)
"""English function words: a question's content is what is left."""


def content_terms(text: str) -> set[str]:
    """The words of ``text`` that carry its content: longer than two letters, not a
    function word, lower case."""
    if text.isascii():  # lower case changes no word's bounds or length: all in C
        return set(_LONG_WORD.findall(text.lower())) - STOPWORDS
    return {w for w in (m.lower() for m in _WORD.findall(text)) if len(w) > 2} - STOPWORDS


READ_CHARS = 20_000
"""Characters of an entry's text whose words a search weighs (the ranking's text features,
a retrieve's coverage): a long entry's words past these would cost every search that loads
it, and the dev sets' longest entry is 5,480 characters."""

_STEMMERS = threading.local()
"""A stemmer per thread: one is not safe to share."""
STEMS_CACHED = 65_536


@lru_cache(maxsize=STEMS_CACHED)
def _stem(word: str) -> str:
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = Stemmer.Stemmer("english")
    return str(stemmer.stemWord(word))


def stems(words: Iterable[str]) -> set[str]:
    """The words' English stems (Snowball's, as the keyword index's), so "peanuts" holds
    "peanut" and "embedding" "embeddings"."""
    return {_stem(w) for w in words}


_TOKEN = re.compile(r"\S+")
_QUOTES = "\"'()[]{}<>,;\u201c\u201d\u2018\u2019"
_SENTENCE_ENDS = (".", "?", "!", ":")


def named_terms(text: str) -> set[str]:
    """The content words of ``text`` written with a capital where no sentence begins
    ("Caroline", "ECR", "GOV.UK"): the names a question asks about. A question about a
    person, a product or a place memory never recorded names what no entry holds."""
    named: set[str] = set()
    begins = True
    for token in _TOKEN.findall(text):
        word = token.strip(_QUOTES)
        if not begins and any(c.isupper() for c in word):
            named |= content_terms(word)
        begins = token.rstrip(_QUOTES).endswith(_SENTENCE_ENDS)
    return named
