"""How many tokens a text is: the embedding model's tokenizer, without its window.

A context block is held to a budget of model tokens. The embedder counts what it would
read (``Embedder.count_tokens``: special tokens included, nothing past the model's window);
``ModelTokens`` counts a whole text of any length with it, by pieces short enough that no
window cuts them. Without a model, ``CharacterTokens`` bounds the count from above.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol

PIECE_CHARS = 120
"""Most characters of a piece counted at once: a WordPiece token covers at least one
character, so a piece is at most this many tokens, well inside a 256-token window."""
_WORD = re.compile(r"\S+")
_BREAK = re.compile(r"[^\w\s]")


class TokenCounter(Protocol):
    """The port a context block is measured with."""

    def count(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text, whole, without the special tokens a model adds."""
        ...


class ModelTokens:
    """The model's tokenizer over whole texts. The model's tokenizers split words at white
    space before anything else, so the tokens of a text are the sum of those of its
    white-space separated pieces; a piece longer than the window allows is split at a
    punctuation mark where it has one."""

    def __init__(self, count_tokens: Callable[[Sequence[str]], list[int]]) -> None:
        """``count_tokens``: the embedder's (special tokens included, up to its window)."""
        self._count_tokens = count_tokens
        self._specials: int | None = None

    def count(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        split = [pieces(text) for text in texts]
        flat = [p for ps in split for p in ps]
        if self._specials is None:
            self._specials = self._count_tokens([""])[0]
        counts = iter(self._count_tokens(flat) if flat else [])
        specials = self._specials
        return [sum(max(0, next(counts) - specials) for _ in ps) for ps in split]


class CharacterTokens:
    """One token per character that is not white space: never fewer than a WordPiece or
    BPE tokenizer counts, for when no model is loaded."""

    def count(self, texts: Sequence[str]) -> list[int]:
        return [sum(len(w) for w in _WORD.findall(text)) for text in texts]


def pieces(text: str, most: int = PIECE_CHARS) -> list[str]:
    """``text`` as runs of whole words of at most ``most`` characters; a longer word is cut
    after a punctuation mark near the limit, else at the limit."""
    out: list[str] = []
    run: list[str] = []
    size = 0
    for word in _WORD.findall(text):
        for part in _cut(word, most):
            if run and size + 1 + len(part) > most:
                out.append(" ".join(run))
                run, size = [], 0
            run.append(part)
            size += len(part) + (1 if size else 0)
    if run:
        out.append(" ".join(run))
    return out


def _cut(word: str, most: int) -> list[str]:
    parts: list[str] = []
    while len(word) > most:
        marks = [m.end() for m in _BREAK.finditer(word, 0, most)]
        at = marks[-1] if marks and marks[-1] > most // 2 else most
        parts.append(word[:at])
        word = word[at:]
    return [*parts, word] if word else parts
