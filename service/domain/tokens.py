"""How many tokens a text is, by the embedding model's tokenizer.

``ModelTokens`` counts a whole text of any length word by word, each word counted once by
the tokenizer and then remembered: a context block is held to a budget of such tokens, and
what the model reads of a text it embeds (``Embedder.count_tokens``: special tokens
included, nothing past the model's window) is counted so at every write. Without a model,
``CharacterTokens`` bounds the count from above.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

WORD_CHARS = 120
"""Most characters of a word counted at once: a WordPiece token covers at least one
character, so a word is at most this many tokens, well inside a 256-token window."""
WORDS_KEPT = 200_000
"""Words whose counts are remembered: the vocabulary of a large memory, a few tens of MB."""
_WORD = re.compile(r"\S+")
_BREAK = re.compile(r"[^\w\s]")


class TokenCounter(Protocol):
    """The port a context block is measured with."""

    def count(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text, whole, without the special tokens a model adds."""
        ...


class ModelTokens:
    """The model's tokenizer over whole texts. The model's tokenizers split words at white
    space before anything else, so the tokens of a text are the sum of those of its words;
    each word is counted once (a word longer than ``WORD_CHARS`` in parts, cut at a
    punctuation mark where it has one) and its count kept, so a block counted again, or a
    text cut to a passage, costs no tokenizer call for the words already seen."""

    def __init__(
        self, count_tokens: Callable[[Sequence[str]], list[int]], *, kept: int = WORDS_KEPT
    ) -> None:
        """``count_tokens``: the tokenizer's count of each text, special tokens included
        (up to the model's window, which no word of ``WORD_CHARS`` reaches)."""
        self._count_tokens = count_tokens
        self._specials: int | None = None
        self._kept = kept
        self._known: dict[str, int] = {}
        self._lock = threading.Lock()

    def count(self, texts: Sequence[str]) -> list[int]:
        split = [words(text) for text in texts]
        # Counts are only ever added to this dict; when full, a new one replaces it, so
        # the one read here holds what it held while another call counts.
        known = self._known
        new = list(dict.fromkeys(w for ws in split for w in ws if w not in known))
        if not new:
            return [sum(map(known.__getitem__, ws)) for ws in split]
        fresh = self._counted(new)
        return [sum(fresh[w] if w in fresh else known[w] for w in ws) for ws in split]

    def read(self, texts: Sequence[str], window: int) -> list[int]:
        """Tokens the model reads of each text: its special tokens added, none past
        ``window``."""
        specials = self._special_tokens()
        return [min(window, specials + n) for n in self.count(texts)]

    def _special_tokens(self) -> int:
        if self._specials is None:
            self._specials = self._count_tokens([""])[0]
        return self._specials

    def _counted(self, new: list[str]) -> dict[str, int]:
        """Tokens of each of the ``new`` words (one tokenizer call), kept for later."""
        specials = self._special_tokens()
        counts = self._count_tokens(new)
        counted = {w: max(0, n - specials) for w, n in zip(new, counts, strict=True)}
        with self._lock:
            if len(self._known) + len(counted) > self._kept:
                self._known = {}
            self._known.update(counted)
        return counted


class CharacterTokens:
    """One token per character that is not white space: never fewer than a WordPiece or
    BPE tokenizer counts, for when no model is loaded."""

    def count(self, texts: Sequence[str]) -> list[int]:
        return [sum(len(w) for w in _WORD.findall(text)) for text in texts]


def words(text: str, most: int = WORD_CHARS) -> list[str]:
    """The white-space separated words of ``text``, a word longer than ``most`` characters
    cut after a punctuation mark near the limit, else at the limit."""
    found = _WORD.findall(text)
    if max(map(len, found), default=0) <= most:
        return found
    return [part for word in found for part in _cut(word, most)]


def _cut(word: str, most: int) -> list[str]:
    parts: list[str] = []
    while len(word) > most:
        marks = [m.end() for m in _BREAK.finditer(word, 0, most)]
        at = marks[-1] if marks and marks[-1] > most // 2 else most
        parts.append(word[:at])
        word = word[at:]
    return [*parts, word] if word else parts
