"""Ranking metrics of one query, as pytrec_eval computes them, and their means."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np


def ndcg_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    """nDCG@k with linear gain, ``sum rel_i / log2(i + 1)`` (1-based i), as pytrec_eval."""
    dcg = sum(max(rels.get(doc, 0), 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    """Fraction of the relevant documents (score > 0) found in the top k."""
    relevant = {doc for doc, r in rels.items() if r > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def mrr_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    """Reciprocal rank of the first relevant document in the top k, else 0."""
    for i, doc in enumerate(ranked[:k]):
        if rels.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def hit_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    """1 when a relevant document is in the top k, else 0."""
    return 1.0 if any(rels.get(doc, 0) > 0 for doc in ranked[:k]) else 0.0


def mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else float("nan")
