"""Model work done at read time since the process started: the queries embedded by
searches and retrieves, and the passages of entries without a stored vector (tier E,
archived tier C) embedded while answering them, per namespace.

Write-time embedding is in the ledger (``tokens_embedded``); this is the rest of what the
model costs, which nothing stores."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace

from service.domain.entries import key_namespace

_COUNTED: ContextVar[bool] = ContextVar("strata_counted", default=True)


@contextmanager
def uncounted() -> Iterator[None]:
    """Searches made within are not counted: neither their model work here nor their time
    in the search metrics (a sweep's, asked as agents ask but not by agents)."""
    token = _COUNTED.set(False)
    try:
        yield
    finally:
        _COUNTED.reset(token)


def counted() -> bool:
    """Whether the search under way counts (see ``uncounted``)."""
    return _COUNTED.get()


CountTokens = Callable[[Sequence[str]], list[int]]
"""Model tokens of each text (``Embedder.count_tokens``)."""


@dataclass(frozen=True)
class ModelWork:
    """Model calls, the texts they embedded and those texts' tokens."""

    calls: int = 0
    texts: int = 0
    tokens: int = 0

    def __add__(self, other: ModelWork) -> ModelWork:
        return ModelWork(
            self.calls + other.calls, self.texts + other.texts, self.tokens + other.tokens
        )

    def __sub__(self, other: ModelWork) -> ModelWork:
        return ModelWork(
            self.calls - other.calls, self.texts - other.texts, self.tokens - other.tokens
        )


@dataclass(frozen=True)
class ReadUsage:
    """What the counter holds at one moment."""

    since: float
    """When counting started: the process's start, as a Unix time."""
    queries: ModelWork = ModelWork()
    """Query texts embedded (a query vector reused from the cache is not)."""
    passages: Mapping[str, ModelWork] = field(default_factory=dict)
    """Passages embedded to measure their cosine with a query, by namespace; a call that
    embedded passages of two namespaces counts as a call of each."""


class ReadModelUsage:
    """A thread-safe counter of read-time model work; the embedder's tokenizer counts the
    tokens of what was really sent to the model."""

    def __init__(self, count_tokens: CountTokens, clock: Callable[[], float] = time.time) -> None:
        self._count_tokens = count_tokens
        self._lock = threading.Lock()
        self._usage = ReadUsage(since=clock())

    def queries_embedded(self, texts: Sequence[str]) -> None:
        """One model call embedded these query texts."""
        if not texts or not counted():
            return
        work = ModelWork(1, len(texts), sum(self._count_tokens(texts)))
        with self._lock:
            self._usage = replace(self._usage, queries=self._usage.queries + work)

    def passages_embedded(self, passages: Sequence[str], keys: Sequence[str]) -> None:
        """One model call embedded these passages, each of the entry of the same place in
        ``keys``."""
        if not passages or not counted():
            return
        by_namespace: dict[str, ModelWork] = {}
        for key, tokens in zip(keys, self._count_tokens(passages), strict=True):
            ns = key_namespace(key)
            by_namespace[ns] = by_namespace.get(ns, ModelWork(1)) + ModelWork(0, 1, tokens)
        with self._lock:
            kept = dict(self._usage.passages)
            for ns, work in by_namespace.items():
                kept[ns] = kept.get(ns, ModelWork()) + work
            self._usage = replace(self._usage, passages=kept)

    def snapshot(self) -> ReadUsage:
        with self._lock:
            return self._usage
