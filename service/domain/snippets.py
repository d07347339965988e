"""Pick the part of an entry to show for a query."""

from __future__ import annotations

import re
from collections.abc import Sequence

SNIPPET_CHARS = 300
_WORD = re.compile(r"\w+")


def query_terms(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 2}


def best_chunk(chunks: Sequence[str], terms: set[str]) -> int:
    """Index of the chunk sharing the most query terms (the first on ties)."""
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
    lowered = text.lower()
    positions = [lowered.find(t) for t in terms]
    found = [p for p in positions if p >= 0]
    if found:
        start = max(0, min(found) - width // 4)
        start = text.rfind(" ", 0, start) + 1 if start else 0
    window = text[start : start + width]
    if start + width < len(text):
        window = window.rsplit(" ", 1)[0] + " …"
    return ("… " if start else "") + window
