"""A deterministic embedder: hashed bag of words."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from service.domain.tokens import ModelTokens
from tests.fakes.entries import words


class FakeEmbedder:
    """Hashed bag of words: the same text always gives the same unit vector, and texts
    sharing words are nearer than texts sharing none."""

    name = "fake-bag-of-words"
    backend = "fake"

    def __init__(self, dimension: int = 32, window: int = 256) -> None:
        self.dimension = dimension
        self.window = window
        """Most tokens a text is counted for, as the model reads no further (MiniLM: 256)."""
        self.calls: list[list[str]] = []
        """Texts of every ``embed`` call, in order (``count_tokens`` is not recorded here)."""
        self.token_calls: list[list[str]] = []
        self.tokens = ModelTokens(self.count_tokens)

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.calls.append(list(texts))
        return [self.vector(t) for t in texts]

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Words plus the two special tokens a BERT-style model adds, up to the window."""
        self.token_calls.append(list(texts))
        return [min(self.token_count(t), self.window) for t in texts]

    @staticmethod
    def token_count(text: str) -> int:
        return len(words(text)) + 2

    @property
    def texts(self) -> list[str]:
        """Every text embedded so far, in order."""
        return [t for call in self.calls for t in call]

    def vector(self, text: str) -> tuple[float, ...]:
        counts = [0.0] * self.dimension
        for word in words(text):
            digest = hashlib.sha256(word.encode()).digest()
            counts[int.from_bytes(digest[:4], "big") % self.dimension] += 1.0
        norm = math.sqrt(sum(c * c for c in counts))
        if norm == 0:
            return (1.0,) + (0.0,) * (self.dimension - 1)
        return tuple(c / norm for c in counts)
