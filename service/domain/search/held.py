"""What an entry's text holds for the ranking: its content words and their stems.

A search reads them from every candidate it loads, and the candidates of one namespace's
searches are mostly the same entries again, so they are kept for the texts read most
recently (``HeldTerms``), bounded by the characters of the texts kept, not their number:
a few long entries cannot hold more memory than many short ones.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from service.domain.text import content_terms, stems

HELD_CHARS = 8_000_000
"""Characters of text whose terms are kept: some 40,000 conversation turns, some tens of MB."""


@dataclass(frozen=True)
class Held:
    """A text's content words (``content_terms``), their stems, and how many words it has
    (between spaces)."""

    terms: frozenset[str]
    stems: frozenset[str]
    words: int


class HeldTerms:
    """``Held`` of texts, the most recently read kept up to ``chars`` characters of text."""

    def __init__(self, chars: int = HELD_CHARS) -> None:
        self._chars = chars
        self._kept: OrderedDict[str, Held] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def of(self, text: str) -> Held:
        with self._lock:
            held = self._kept.get(text)
            if held is not None:
                self._kept.move_to_end(text)
                return held
        terms = content_terms(text)
        held = Held(frozenset(terms), frozenset(stems(terms)), len(text.split()))
        if len(text) > self._chars // 100:
            return held  # one text never takes more than a hundredth of the room
        with self._lock:
            if text not in self._kept:
                self._kept[text] = held
                self._size += len(text)
                while self._size > self._chars:
                    dropped, _ = self._kept.popitem(last=False)
                    self._size -= len(dropped)
        return held

    @property
    def chars(self) -> int:
        """Characters of the texts kept now."""
        return self._size
