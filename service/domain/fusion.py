"""Weighted reciprocal rank fusion of ranked lists."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Fused:
    key: str
    score: float
    """Fused score normalised to [0, 1]; see ``fuse``."""
    ranks: Mapping[str, int]
    """1-based rank of the key in each list it appears in."""


def fuse(lists: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: float) -> list[Fused]:
    """Fuse ranked key lists by weighted RRF, best first.

    raw(d) = sum over lists L holding d of w_L / (k + rank_L(d)). The score is raw(d)
    divided by the best raw score possible, sum over searched lists of w_L / (k + 1):
    1.0 means ranked first by every list searched. With a single list this reduces to
    (k + 1) / (k + rank), so scores are comparable across modes. Ties keep the order of
    first appearance, lists taken in the order given.
    """
    best = sum(weights.get(name, 1.0) / (k + 1) for name in lists)
    raw: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for name, keys in lists.items():
        weight = weights.get(name, 1.0)
        for position, key in enumerate(keys, start=1):
            if name in ranks.get(key, {}):
                continue  # a key counts once per list, at its best rank
            raw[key] = raw.get(key, 0.0) + weight / (k + position)
            ranks.setdefault(key, {})[name] = position
    if best <= 0:
        best = 1.0
    order = sorted(raw, key=lambda key: -raw[key])
    return [Fused(key, min(raw[key] / best, 1.0), ranks[key]) for key in order]


def blend(
    lists: Mapping[str, Sequence[str]],
    keyword: Mapping[str, float],
    similarity: Mapping[str, float],
    keyword_share: float,
) -> list[Fused]:
    """Fuse by score: ``keyword_share x keyword + (1 - keyword_share) x similarity``, best
    first, when both lists were searched; the one list's score when only one was.

    ``keyword`` is the BM25 score over its bound for the query, in [0, 1]; ``similarity``
    the cosine of query and entry clipped to [0, 1], known for every embedded candidate,
    whichever list found it. Unlike RRF the score says how well an entry matches, not only
    how it ranks: the same score means the same across queries. Ties keep the order of
    first appearance, lists taken in the order given.
    """
    share = keyword_share if {"bm25", "vector"} <= set(lists) else float("bm25" in lists)
    ranks: dict[str, dict[str, int]] = {}
    for name, keys in lists.items():
        for position, key in enumerate(keys, start=1):
            ranks.setdefault(key, {}).setdefault(name, position)
    scores = {
        key: share * min(max(keyword.get(key, 0.0), 0.0), 1.0)
        + (1 - share) * min(max(similarity.get(key, 0.0), 0.0), 1.0)
        for key in ranks
    }
    order = sorted(ranks, key=lambda key: -scores[key])
    return [Fused(key, scores[key], ranks[key]) for key in order]
