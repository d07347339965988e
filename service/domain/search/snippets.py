"""Pick the part of an entry to show for a query."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import lru_cache

SNIPPET_CHARS = 300
_WORD = re.compile(r"\w+")
_LONG_WORD = re.compile(r"\w{3,}")


def query_terms(text: str) -> set[str]:
    """The words of ``text`` longer than two characters, lower case."""
    if text.isascii():  # lower case changes no word's bounds or length: all in C
        return set(_LONG_WORD.findall(text.lower()))
    return {w.lower() for w in _WORD.findall(text) if len(w) > 2}


SCAN_CHARS = 100_000
"""Characters of an entry's chunks ``best_chunk`` reads, from the first: past them, a
longer entry's passage is chosen among the chunks read (it is still found by every word)."""

FEW_TERMS = 16
"""Up to this many query terms, one regular expression finds them in a chunk faster than
listing the chunk's words; past it, the expression's alternatives cost more than the list."""


def best_chunk(chunks: Sequence[str], terms: set[str]) -> int:
    """Index of the chunk sharing the most query terms (the first on ties), among the
    chunks within the first ``SCAN_CHARS`` characters."""
    if len(chunks) < 2:
        return 0
    pattern = _words_of(frozenset(terms)) if len(terms) <= FEW_TERMS else None
    best, best_overlap, read = 0, -1, 0
    for n, chunk in enumerate(chunks):
        if n and read + len(chunk) > SCAN_CHARS:
            break
        read += len(chunk)
        overlap = _overlap(chunk, terms, pattern)
        if overlap > best_overlap:
            best, best_overlap = n, overlap
    return best


def _overlap(chunk: str, terms: set[str], pattern: re.Pattern[str] | None) -> int:
    """How many of ``terms`` stand as words of ``chunk``."""
    if not chunk.isascii():
        return len(terms & query_terms(chunk))
    if pattern is not None:
        return len(set(pattern.findall(chunk.lower())))
    return len(terms.intersection(_LONG_WORD.findall(chunk.lower())))


@lru_cache(maxsize=256)
def _words_of(terms: Collection[str]) -> re.Pattern[str] | None:
    """What finds the ``terms`` standing as words of a lower-case ASCII text, in one pass;
    None unless there are terms and each is a word of ``query_terms`` in ASCII."""
    if not terms or not all(
        t.isascii() and _LONG_WORD.fullmatch(t) and t == t.lower() for t in terms
    ):
        return None
    either = "|".join(re.escape(t) for t in sorted(terms, key=lambda t: (-len(t), t)))
    return re.compile(rf"(?<!\w)(?:{either})(?!\w)")


def snippet(text: str, terms: set[str], width: int = SNIPPET_CHARS) -> str:
    """A window of about ``width`` characters around the first query term in ``text``."""
    if len(text) <= width:
        return text
    start = 0
    ascii_text = text.isascii()
    pattern = _words_of(frozenset(terms)) if ascii_text and len(terms) <= FEW_TERMS else None
    if pattern is not None:
        found = pattern.search(text.lower())
        first = found.start() if found else None
    elif ascii_text:
        words = _LONG_WORD.finditer(text.lower())
        first = next((m.start() for m in words if m.group() in terms), None)
    else:
        words = _WORD.finditer(text)
        first = next((m.start() for m in words if m.group().lower() in terms), None)
    if first is not None:
        start = max(0, first - width // 4)
        space = text.rfind(" ", max(0, start - 40), start + 1)
        # Start at a word boundary when one is near; otherwise cut the long token.
        start = space + 1 if space >= 0 and start else start
    window = text[start : start + width]
    if start + width < len(text):
        window = window.rsplit(" ", 1)[0] + " …"
    return ("… " if start else "") + window
