"""What a search is asked and what it answers: filters, the query, hits and results."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from schemas.vocabulary import Kind, Mode, Tier
from service.domain.entries import Entry


@dataclass(frozen=True)
class Filters:
    """Conditions every search result meets, applied inside each store."""

    namespace: str
    tiers: tuple[Tier, ...]
    now: float
    speaker: str | None = None
    chain_type: str | None = None
    tags: tuple[str, ...] = ()
    since: float | None = None
    until: float | None = None
    include_archived: bool = False
    kind: Kind | None = None
    include_superseded: bool = False
    """Superseded entries are left out unless asked for (then shown marked)."""
    as_of: float | None = None
    """Memory as it held at this moment (``service.domain.search.as_of``); None: as it is now."""


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
class SearchQuery:
    text: str
    filters: Filters
    mode: Mode = "auto"
    limit: int = 10
    explain: bool = False
    rerank: bool | None = None
    """None: the service's default."""
    min_score: float = 0.0
    """Results scoring below it are left out (the service's floor, STRATA_MIN_SCORE, is
    set by whoever builds the query; 0: none)."""
    relax: bool = False
    """When nothing is found, retry once over every tier, ``min_score`` no higher than the
    service's floor."""


class ListExplain(NamedTuple):
    """Where an entry stood in one ranked list. (A named tuple: a search makes hundreds.)"""

    rank: int
    score: float


class SearchResult(NamedTuple):
    """One result of a search. (A named tuple: a search makes up to a few hundred.)"""

    entry: Entry
    snippet: str
    score: float
    explain: Mapping[str, ListExplain] | None = None
    relevance: float | None = None
    """Raw similarity of the best stage that scored it, in [0, 1], before tier and recency:
    the cross-encoder's score when reranked, else the fusion score (score fusion) or the
    cosine of query and best chunk (rank fusion; None for entries without vectors)."""
    passage: str = ""
    """The chunk that matched best."""


@dataclass(frozen=True)
class SearchOutcome:
    results: list[SearchResult]
    mode: Mode
    degraded: list[str]
    relaxed: bool = False
    stages: Mapping[str, float] = field(default_factory=dict)
    """Seconds each step of the search took (``embed``, ``bm25``, ``vector``, ``fusion``,
    ``hydration``, and ``rerank`` or ``ranking``), its wider retry included."""
    cached: bool = False
    """Answered from the query cache: nothing was searched."""
    superseded: tuple[Entry, ...] = ()
    """With ``explain``: the candidates left out because they were superseded (then, with
    ``as_of``), best first."""
    dropped: int = 0
    """Results within ``limit`` left out for scoring below ``min_score``."""
    keywords: KeywordStatistics | None = None
    """With ``explain``, when the keyword list was searched: the statistics it scored by."""

    @property
    def weight(self) -> int:
        """Bytes it holds, about: its texts (4 bytes a character at most) and a little more."""
        texts = sum(len(r.entry.text) + len(r.snippet) + len(r.passage) for r in self.results)
        return 4 * texts + 512 * (1 + len(self.results))
