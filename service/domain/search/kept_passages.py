"""The entries and chunk vectors searches read last, kept until their namespace changes.

A search loads every candidate it ranks: some 110 entries at ``limit`` 100, read and
decoded from the ledger each time (about a millisecond of a keyword search of 4 ms), and
the chunk vectors of the keyword candidates the vector list did not find. Agents ask many
questions of one namespace, and the candidates of one are mostly those of the next: they are
kept (``KeptPassages``), per namespace, and dropped with everything else computed from a
namespace when a write changes it (the query cache's rule, ``service/lib/cache.py``), or
after the query cache's seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from service.domain.entries import Entry, key_namespace
from service.domain.model import Matrix
from service.domain.ports import Passages
from service.lib.cache import QueryCache

ENTRIES_KEPT = 20_000
"""Entries kept at most (with their chunk texts)."""
ENTRY_BYTES = 24 * 1024 * 1024
"""What the entries kept may weigh at most, counted by their texts' characters."""
VECTORS_KEPT = 20_000
"""Entries whose chunk vectors are kept, at most."""
VECTOR_BYTES = 16 * 1024 * 1024
"""What the vectors kept may weigh at most: some 10,000 chunks of 384 dimensions."""

V = TypeVar("V")
Passage = tuple[Entry, tuple[str, ...]]


class KeptPassages:
    """``Passages`` of ``ledger``, each entry's kept once read, until ``changed`` is told
    its namespace changed or ``seconds`` pass."""

    def __init__(
        self, ledger: Passages, seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._ledger = ledger
        self._entries: QueryCache[Passage] = QueryCache(
            ENTRIES_KEPT, seconds, clock, max_bytes=ENTRY_BYTES, weigh=_weight
        )
        self._vectors: QueryCache[Matrix] = QueryCache(
            VECTORS_KEPT, seconds, clock, max_bytes=VECTOR_BYTES, weigh=lambda m: int(m.nbytes)
        )

    def passages(self, keys: Sequence[str]) -> dict[str, Passage]:
        return _through(self._entries, self._ledger.passages, keys)

    def vectors(self, keys: Sequence[str]) -> dict[str, Matrix]:
        return _through(self._vectors, self._ledger.vectors, keys)

    def changed(self, namespaces: Iterable[str]) -> None:
        """A write changed these namespaces: nothing read of them before is returned."""
        namespaces = set(namespaces)
        self._entries.invalidate(namespaces)
        self._vectors.invalidate(namespaces)


def _through(
    kept: QueryCache[V], read: Callable[[Sequence[str]], Mapping[str, V]], keys: Sequence[str]
) -> dict[str, V]:
    """The values of ``keys`` that are kept, the others read (in one call) and kept, in the
    order of ``keys``; a key ``read`` does not find is left out."""
    found: dict[str, V | None] = {}
    generations: dict[str, int] = {}
    missing: list[str] = []
    for key in keys:
        namespace = key_namespace(key)
        if namespace not in generations:
            generations[namespace] = kept.generation(namespace)  # before reading
        value = kept.get(namespace, key)
        found[key] = value
        if value is None:
            missing.append(key)
    if missing:
        fresh = read(missing)
        for key, value in fresh.items():
            namespace = key_namespace(key)
            kept.put(namespace, key, value, generations[namespace])
            found[key] = value
    return {key: value for key, value in found.items() if value is not None}


def _weight(passage: Passage) -> int:
    entry, chunks = passage
    return 512 + len(entry.text) + sum(map(len, chunks))
