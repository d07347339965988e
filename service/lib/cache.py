"""Recent search outcomes, dropped when their namespace changes or after a short while."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import KW_ONLY, dataclass, field
from typing import Generic, TypeVar

V = TypeVar("V")


@dataclass(frozen=True)
class _Kept(Generic[V]):
    value: V
    at: float
    generation: int
    size: int


@dataclass(eq=False)
class QueryCache(Generic[V]):
    """An LRU of values computed from one namespace's entries.

    Every write to a namespace moves its generation on, and a value computed at an older
    generation is never returned. ``seconds`` bounds what changes without a write (tier C
    entries expiring, recency decay). ``size`` 0 turns the cache off. ``max_bytes`` bounds
    the memory the values take, as ``weigh`` estimates it; a value heavier than that is not
    kept at all.
    """

    size: int
    seconds: float
    clock: Callable[[], float] = time.monotonic
    _: KW_ONLY
    max_bytes: int
    weigh: Callable[[V], int]
    bytes: int = field(default=0, init=False)
    """What the values kept weigh."""
    hits: int = field(default=0, init=False)
    misses: int = field(default=0, init=False)
    _kept: OrderedDict[Hashable, _Kept[V]] = field(
        default_factory=OrderedDict, init=False, repr=False
    )
    _generations: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __len__(self) -> int:
        """Values kept."""
        return len(self._kept)

    def generation(self, namespace: str) -> int:
        """Read before computing a value, and passed to ``put`` with it."""
        with self._lock:
            return self._generations.get(namespace, 0)

    def get(self, namespace: str, key: Hashable) -> V | None:
        if self.size <= 0:
            return None
        with self._lock:
            kept = self._kept.get((namespace, key))
            fresh = (
                kept is not None
                and kept.generation == self._generations.get(namespace, 0)
                and self.clock() - kept.at <= self.seconds
            )
            if not fresh:
                self.misses += 1
                return None
            assert kept is not None
            self._kept.move_to_end((namespace, key))
            self.hits += 1
            return kept.value

    def put(self, namespace: str, key: Hashable, value: V, generation: int) -> None:
        if self.size <= 0:
            return
        weight = self.weigh(value)
        if weight > self.max_bytes:
            return
        with self._lock:
            if generation != self._generations.get(namespace, 0):
                return  # the namespace changed while the value was computed
            old = self._kept.pop((namespace, key), None)
            self.bytes -= old.size if old else 0
            self._kept[(namespace, key)] = _Kept(value, self.clock(), generation, weight)
            self.bytes += weight
            while len(self._kept) > self.size or self.bytes > self.max_bytes:
                _, dropped = self._kept.popitem(last=False)
                self.bytes -= dropped.size

    def invalidate(self, namespaces: Iterable[str]) -> None:
        """A write changed these namespaces: nothing computed before it is returned."""
        with self._lock:
            for namespace in set(namespaces):
                self._generations[namespace] = self._generations.get(namespace, 0) + 1
