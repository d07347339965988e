"""Recall from an upstream memory service when the local search finds nothing (``upstream``)."""

from service.domain.recall.upstream import (
    Recalled,
    RecallReport,
    RetryPolicy,
    UpstreamError,
    UpstreamRecall,
    UpstreamSnapshot,
    backoff_delay,
)

__all__ = [
    "RecallReport",
    "Recalled",
    "RetryPolicy",
    "UpstreamError",
    "UpstreamRecall",
    "UpstreamSnapshot",
    "backoff_delay",
]
