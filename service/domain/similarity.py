"""Cosines of unit vectors: of two vectors, and of a query with each entry's best chunk."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


def best_cosines(
    vector: Sequence[float], chunk_vectors: Mapping[str, Sequence[Sequence[float]]]
) -> dict[str, float]:
    """Each entry's best chunk cosine with the query (unit vectors; other sizes skipped)."""
    keys = [k for k, vs in chunk_vectors.items() for v in vs if len(v) == len(vector)]
    if not keys:
        return {}
    matrix = np.asarray(
        [v for vs in chunk_vectors.values() for v in vs if len(v) == len(vector)],
        dtype=np.float32,
    )
    best: dict[str, float] = {}
    scores = (matrix @ np.asarray(vector, dtype=np.float32)).tolist()
    for key, score in zip(keys, scores, strict=True):
        if key not in best or score > best[key]:
            best[key] = score
    return best


def cosine(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Cosine of two unit vectors; None when either is missing."""
    if not a or len(a) != len(b):
        return None
    return float(sum(x * y for x, y in zip(a, b, strict=True)))
