"""A deterministic reranker: the share of the query's words a passage holds."""

from __future__ import annotations

from collections.abc import Sequence

from tests.fakes.entries import words


class FakeReranker:
    """Scores each passage by the share of the query's distinct words it contains, in
    [0, 1]; records the passages of every call."""

    name = "fake-word-overlap"

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        self.calls.append((query, list(passages)))
        wanted = set(words(query))
        if not wanted:
            return [0.0] * len(passages)
        return [len(wanted & set(words(p))) / len(wanted) for p in passages]
