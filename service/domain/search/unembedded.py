"""A query's cosine with entries that have no stored vector (tier E, archived tier C),
measured at query time for the few that reach the ranking: each entry's best chunk is
embedded now, and nothing is stored, so the tiers' embedding saving holds.

Without it a keyword-only candidate would read as a zero cosine and sink below every
embedded entry that merely shares a word with the query."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from service.domain.memory.texts import embedding_input
from service.domain.ports import Embedder, Passages
from service.domain.search.snippets import best_chunk, query_terms
from service.domain.search.usage import ReadModelUsage

PASSAGES_KEPT = 4096
"""Passage vectors kept between searches (about 1.5 kB each at 384 dimensions)."""


class QueryTimeCosines:
    def __init__(
        self, ledger: Passages, embedder: Embedder, most: int, usage: ReadModelUsage | None = None
    ) -> None:
        self.ledger = ledger
        self.embedder = embedder
        self.most = most
        """Most entries embedded for one query."""
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        """Vectors of passages embedded lately, by passage text: the same log lines come
        back as candidates of many searches."""
        self._lock = threading.Lock()
        self.usage = usage
        """Counts the passages embedded here; None: not counted."""

    def __call__(self, text: str, vector: Sequence[float], keys: Sequence[str]) -> dict[str, float]:
        """Cosines of ``vector`` (the query's) with the best chunk of each of the first
        ``most`` of ``keys``, in one model call."""
        found = self.ledger.passages(list(keys[: self.most]))
        if not found:
            return {}
        terms = query_terms(text)
        inputs: list[tuple[str, str]] = []
        for key, (entry, chunks) in found.items():
            texts = chunks or (entry.text,)
            inputs.append((key, embedding_input(entry, texts[best_chunk(texts, terms)])))
        owners = {passage: key for key, passage in reversed(inputs)}
        vectors = self._vectors([passage for _, passage in inputs], owners)
        query = np.asarray(vector, dtype=np.float32)
        return {
            key: float(v @ query) if len(v) == len(query) else 0.0
            for (key, _), v in zip(inputs, vectors, strict=True)
        }

    def _vectors(self, passages: list[str], owners: dict[str, str]) -> list[np.ndarray]:
        """Each passage's vector: kept ones as they are, the others in one model call
        (counted against the namespace of ``owners[passage]``, the first entry holding it)."""
        with self._lock:
            found = {p: self._kept[p] for p in passages if p in self._kept}
            for passage in found:
                self._kept.move_to_end(passage)
        missing = list(dict.fromkeys(p for p in passages if p not in found))
        if missing:
            made = self.embedder.embed(missing)
            if self.usage is not None:
                self.usage.passages_embedded(missing, [owners[p] for p in missing])
            fresh = {p: np.asarray(v, dtype=np.float32) for p, v in zip(missing, made, strict=True)}
            found |= fresh
            with self._lock:
                self._kept.update(fresh)
                while len(self._kept) > PASSAGES_KEPT:
                    self._kept.popitem(last=False)
        return [found[p] for p in passages]
