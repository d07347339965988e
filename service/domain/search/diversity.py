"""Maximal marginal relevance, as a scoring layer: near-duplicates of better results sink."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from service.domain.search.snippets import query_terms


class Scored(Protocol):
    score: float
    passage: str


def overlap(a: set[str], b: set[str]) -> float:
    """Jaccard similarity of two word sets."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def diversify(items: Sequence[Scored], lam: float) -> list[tuple[Scored, float]]:
    """Greedy MMR in multiplicative form, best first, each item with its factor.

    Each step picks the item with the highest ``score * (1 - (1 - lam) * sim)``, where
    ``sim`` is its largest word overlap with an item already picked, and freezes that
    factor. Overlaps only grow as items are picked, so the adjusted scores come out in
    descending order and stay in [0, 1]. ``lam`` 1 changes nothing; lower values push
    repeats of what is already shown further down.
    """
    if lam >= 1 or len(items) < 2:
        return [(item, 1.0) for item in items]
    words = [query_terms(item.passage) for item in items]
    closest = [0.0] * len(items)
    remaining = list(range(len(items)))
    picked: list[tuple[Scored, float]] = []
    while remaining:
        best = max(remaining, key=lambda i: (items[i].score * (1 - (1 - lam) * closest[i]), -i))
        remaining.remove(best)
        picked.append((items[best], 1 - (1 - lam) * closest[best]))
        for i in remaining:
            closest[i] = max(closest[i], overlap(words[i], words[best]))
    return picked
