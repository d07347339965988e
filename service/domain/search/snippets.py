"""Pick the part of an entry to show for a query."""

from __future__ import annotations

import re
from collections.abc import Sequence

SNIPPET_CHARS = 300
_WORD = re.compile(r"\w+")


_LONG_WORD = re.compile(r"\w{3,}")


def query_terms(text: str) -> set[str]:
    """The words of ``text`` longer than two characters, lower case."""
    if text.isascii():  # lower case changes no word's bounds or length: all in C
        return set(_LONG_WORD.findall(text.lower()))
    return {w.lower() for w in _WORD.findall(text) if len(w) > 2}


def best_chunk(chunks: Sequence[str], terms: set[str]) -> int:
    """Index of the chunk sharing the most query terms (the first on ties)."""
    if len(chunks) < 2:
        return 0
    best, best_overlap = 0, -1
    for n, chunk in enumerate(chunks):
        overlap = len(terms & query_terms(chunk))
        if overlap > best_overlap:
            best, best_overlap = n, overlap
    return best


def snippet(text: str, terms: set[str], width: int = SNIPPET_CHARS) -> str:
    """A window of about ``width`` characters around the first query term in ``text``."""
    if len(text) <= width:
        return text
    start = 0
    first = next((m.start() for m in _WORD.finditer(text) if m.group().lower() in terms), None)
    if first is not None:
        start = max(0, first - width // 4)
        space = text.rfind(" ", max(0, start - 40), start + 1)
        # Start at a word boundary when one is near; otherwise cut the long token.
        start = space + 1 if space >= 0 and start else start
    window = text[start : start + width]
    if start + width < len(text):
        window = window.rsplit(" ", 1)[0] + " …"
    return ("… " if start else "") + window
