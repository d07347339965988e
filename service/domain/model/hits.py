"""What a store finds for a query: its hits, put in order one way wherever they are, the
BM25 statistics it scored by, and an upstream service's hits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from service.domain.entries import Entry

ORDER_PLACES = 6
"""Decimal places a store's score is read to when hits are put in order, equal ones by key:
an index rebuilt from the same data may differ in a score's last bits, and an order must
not."""


def in_order(hit: Hit) -> tuple[float, str]:
    """The sort key of hits, best first: the score to ``ORDER_PLACES``, then the key, so an
    order never depends on how a store holds its data."""
    return (-round(hit.score, ORDER_PLACES), hit.key)


class Hit(NamedTuple):
    """One store's match for an entry: the best chunk and the store's own score. (A
    named tuple: a search makes hundreds.)"""

    key: str
    score: float
    chunk: int = 0


@dataclass(frozen=True)
class KeywordStatistics:
    """The BM25 statistics a namespace's keyword search used for a query: its own, never
    another namespace's."""

    documents: int
    """Documents its keyword index holds (an entry found by passage counts each passage)."""
    frequencies: Mapping[str, int]
    """By query term (stemmed, question words left out): the documents that hold it."""
    bound: float = 0.0
    """The most BM25 an entry could score on the query (0: no terms, or no documents)."""


@dataclass(frozen=True)
class UpstreamHit:
    """An entry an upstream found, as it gave it (``entry.namespace`` is the upstream's)."""

    entry: Entry
    snippet: str
    score: float
