"""Whether an entry as stored can be indexed: the checks recovery makes before it tries."""

from __future__ import annotations

import math

from service.domain.entries import EARLIEST_TIME, LATEST_TIME, StoredEntry
from service.domain.memory.texts import keyword_texts


def problem(stored: StoredEntry) -> str | None:
    """Why ``stored`` cannot be indexed, or None. Rows written before times were checked
    (or by another version) may carry what no index takes."""
    entry = stored.entry
    times = {"timestamp": entry.timestamp, "expires_at": entry.expires_at}
    for name, value in times.items():
        if value is not None and not (
            math.isfinite(value) and EARLIEST_TIME <= value <= LATEST_TIME
        ):
            return f"{name} {value!r} is outside 1970-01-01..9999-12-31"
    dimensions = {len(c.vector) for c in stored.chunks if c.vector is not None}
    if len(dimensions) > 1:
        return f"chunk vectors of different sizes {sorted(dimensions)}"
    for chunk in stored.chunks:
        if chunk.vector is not None and not all(math.isfinite(x) for x in chunk.vector):
            return f"chunk {chunk.number} has a vector that is not finite"
    try:
        keyword_texts(stored)
    except Exception as exc:  # any reason the text cannot be built is this row's problem
        return f"its keyword text cannot be built ({type(exc).__name__}: {exc})"
    return None
