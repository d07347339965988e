"""A query's cosine with entries that have no stored vector (tier E, archived tier C),
measured at query time for the few that reach the ranking: each entry's best chunk is
embedded now, and nothing is stored, so the tiers' embedding saving holds.

Without it a keyword-only candidate would read as a zero cosine and sink below every
embedded entry that merely shares a word with the query."""

from __future__ import annotations

from collections.abc import Sequence

from service.domain.ports import Embedder, Ledger
from service.domain.similarity import cosine
from service.domain.snippets import best_chunk, query_terms
from service.domain.texts import embedding_input


class QueryTimeCosines:
    def __init__(self, ledger: Ledger, embedder: Embedder, most: int) -> None:
        self.ledger = ledger
        self.embedder = embedder
        self.most = most
        """Most entries embedded for one query."""

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
        vectors = self.embedder.embed([passage for _, passage in inputs])
        return {key: cosine(vector, v) or 0.0 for (key, _), v in zip(inputs, vectors, strict=True)}
