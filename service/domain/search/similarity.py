"""Cosines of unit vectors: of two vectors, and of a query with each entry's best chunk."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from service.domain.model import Matrix


def best_cosines(vector: Sequence[float], matrices: Mapping[str, Matrix]) -> dict[str, float]:
    """Each entry's best chunk cosine with the query (unit vectors), one matrix product per
    entry; an entry whose vectors are of another size than the query's is left out."""
    query = np.asarray(vector, dtype=np.float32)
    return {
        key: float((matrix @ query).max())
        for key, matrix in matrices.items()
        if matrix.ndim == 2 and matrix.shape[0] and matrix.shape[1] == query.shape[0]
    }


def cosine(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Cosine of two unit vectors; None when either is missing."""
    if not a or len(a) != len(b):
        return None
    return float(sum(x * y for x, y in zip(a, b, strict=True)))
