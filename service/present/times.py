"""Times as the wire writes them."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache

from service.domain.entries import EARLIEST_TIME, LATEST_TIME


@lru_cache(maxsize=8192)
def format_time(seconds: float | None) -> str | None:
    """ISO 8601 in UTC; a time beyond what a date can hold (only rows written before times
    were checked can carry one) shows as the nearest that can. The last few thousand are
    kept: a search shows the same entries' times again and again."""
    if seconds is None:
        return None
    bounded = min(max(seconds, EARLIEST_TIME), LATEST_TIME)
    return datetime.fromtimestamp(bounded, UTC).isoformat().replace("+00:00", "Z")
