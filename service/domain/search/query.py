"""What a search is asked and what it answers: the query, the candidates it weighs and the
results (the filters and the stores' hits are values of ``service.domain.model``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from schemas.vocabulary import Mode
from service.domain.entries import Entry
from service.domain.model import Filters, Hit, KeywordStatistics
from service.domain.search.snippets import query_terms


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
    """When nothing is found, retry once over every tier, ``min_score`` no higher than
    ``floor``."""
    floor: float | None = None
    """The relevance floor in force for the namespace (its sweep's fit, else the service's);
    None: the service's."""

    @cached_property
    def terms(self) -> set[str]:
        """The words of ``text`` a passage is matched with: its chunk and its snippet."""
        return query_terms(self.text)


@dataclass(frozen=True)
class Lists:
    """What the engines found for one query, for the fusion to make one ranking of."""

    text: str
    namespace: str
    hits: Mapping[str, Sequence[Hit]]
    """Each searched engine's hits (``bm25``, ``vector``), best first."""
    vector: Sequence[float] | None
    """The query's vector, when the vector list was searched."""


class ListExplain(NamedTuple):
    """Where an entry stood in one ranked list. (A named tuple: a search makes hundreds.)"""

    rank: int
    score: float


@dataclass
class Candidate:
    """A result in the making: the scoring layers scale its score and add to its explain."""

    entry: Entry
    passage: str
    """The chunk that matched best."""
    score: float
    explain: dict[str, ListExplain]
    relevance: float | None = None
    features: Mapping[str, float] | None = None
    """What the fusion knew of it before it was loaded (a learned fusion's list features)."""
    replaced_match: float = 0.0
    """How well the best of the entries it replaced matched the question, among the
    candidates (``replaced_matches``); 0 when it replaced none of them."""


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
