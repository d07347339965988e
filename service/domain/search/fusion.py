"""Fusion of the BM25 and vector lists: the formulas (weighted reciprocal rank fusion, a blend
of scores) and the two strategies built on them, ``ScoreFusion`` and ``RankFusion``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple, Protocol

from service.domain.model import ORDER_PLACES, Hit, KeywordStatistics, Matrix
from service.domain.search.query import Candidate, ListExplain, Lists
from service.domain.search.similarity import best_cosines

ChunkVectors = Callable[[Sequence[str]], Mapping[str, Matrix]]
"""The ledger's chunk vectors of entries, by key (``Passages.vectors``)."""

VECTOR_BATCH = 8
"""Entries whose chunk vectors are held at once when their cosines come from the ledger,
so that a search holds a few matrices (of at most STRATA_MAX_CHUNKS rows each), not all."""


class Fused(NamedTuple):
    key: str
    score: float
    """Fused score normalised to [0, 1]; see ``fuse``."""
    ranks: Mapping[str, int]
    """1-based rank of the key in each list it appears in."""


def fuse(lists: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: float) -> list[Fused]:
    """Fuse ranked key lists by weighted RRF, best first.

    raw(d) = sum over lists L holding d of w_L / (k + rank_L(d)). The score is raw(d)
    divided by the best raw score possible, sum over searched lists of w_L / (k + 1):
    1.0 means ranked first by every list searched. With a single list this reduces to
    (k + 1) / (k + rank), so scores are comparable across modes. Ties keep the order of
    first appearance, lists taken in the order given.
    """
    best = sum(weights.get(name, 1.0) / (k + 1) for name in lists)
    raw: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for name, keys in lists.items():
        weight = weights.get(name, 1.0)
        for position, key in enumerate(keys, start=1):
            if name in ranks.get(key, {}):
                continue  # a key counts once per list, at its best rank
            raw[key] = raw.get(key, 0.0) + weight / (k + position)
            ranks.setdefault(key, {})[name] = position
    if best <= 0:
        best = 1.0
    order = sorted(raw, key=lambda key: -raw[key])
    return [Fused(key, min(raw[key] / best, 1.0), ranks[key]) for key in order]


def blend(
    lists: Mapping[str, Sequence[str]],
    keyword: Mapping[str, float],
    similarity: Mapping[str, float],
    keyword_share: float,
) -> list[Fused]:
    """Fuse by score: ``keyword_share x keyword + (1 - keyword_share) x similarity``, best
    first, when both lists were searched; the one list's score when only one was.

    ``keyword`` is the BM25 score over its bound for the query, in [0, 1]; ``similarity``
    the cosine of query and entry clipped to [0, 1], known for every embedded candidate,
    whichever list found it. Unlike RRF the score says how well an entry matches, not only
    how it ranks: the same score means the same across queries. Ties keep the order of
    first appearance, lists taken in the order given.
    """
    share = keyword_share if {"bm25", "vector"} <= set(lists) else float("bm25" in lists)
    ranks: dict[str, dict[str, int]] = {}
    for name, keys in lists.items():
        for position, key in enumerate(keys, start=1):
            ranks.setdefault(key, {}).setdefault(name, position)
    scores = {
        key: share * min(max(keyword.get(key, 0.0), 0.0), 1.0)
        + (1 - share) * min(max(similarity.get(key, 0.0), 0.0), 1.0)
        for key in ranks
    }
    order = sorted(ranks, key=lambda key: -scores[key])
    return [Fused(key, scores[key], ranks[key]) for key in order]


class FusedHit(NamedTuple):
    """A fused candidate, before its entry is loaded from the ledger. (Named tuples: a
    search makes hundreds.)"""

    key: str
    score: float
    """The fused score, in [0, 1]."""
    explain: Mapping[str, ListExplain]
    """Its rank and the store's own score in each list that found it."""
    vector_hit: Hit | None = None
    """Its hit in the vector list, if that list found it: the chunk matched and the cosine."""
    keyword_hit: Hit | None = None
    """Its hit in the BM25 list, if that list found it: for an entry found by passage, the
    chunk matched."""
    features: Mapping[str, float] | None = None
    """What a learned fusion knew of it before its entry was loaded."""


UnembeddedCosines = Callable[[str, Sequence[float], Sequence[str]], Mapping[str, float]]
"""``(query text, query vector, keys)``: cosines of entries without a stored vector."""


class Fusion(Protocol):
    """How the BM25 and vector lists become one ranking, and what a result's relevance is.
    A strategy that subclasses it has, unless it says otherwise, its fused score for the
    relevance and loaded candidates settled as they were fused."""

    def fuse(self, lists: Lists, limit: int) -> list[FusedHit]:
        """The best ``limit`` candidates of the lists (each sorted best first), best first."""
        ...

    def relevances(
        self, hits: Sequence[FusedHit], vector: Sequence[float] | None
    ) -> dict[str, float | None]:
        """Each candidate's similarity to the query, before any weighting, by key; None
        where unknown."""
        return {hit.key: hit.score for hit in hits}

    def settle(self, lists: Lists, candidates: list[Candidate], explain: bool) -> list[Candidate]:
        """The loaded candidates of ``lists``, rescored where their entries tell more, best
        first; with ``explain``, each rescored part is in their ``explain``."""
        return candidates


class ScoreFusion(Fusion):
    """Fusion by score (``blend``): the BM25 score over its bound for the query mixed with
    the best chunk cosine. The fused score is an absolute match score, so it is the
    relevance too."""

    def __init__(
        self,
        keyword_share: float,
        statistics: Callable[[str, str], KeywordStatistics],
        chunk_vectors: ChunkVectors,
        unembedded: UnembeddedCosines | None = None,
    ) -> None:
        self.keyword_share = keyword_share
        self.statistics = statistics
        """The keyword index's statistics of a query in a namespace (its bound on a BM25
        score there, its documents)."""
        self.chunk_vectors = chunk_vectors
        self.unembedded = unembedded
        """Cosines, measured now, of BM25 candidates with no stored vector; None: those
        candidates count a cosine of 0."""

    def fuse(self, lists: Lists, limit: int) -> list[FusedHit]:
        hits, vector = lists.hits, lists.vector
        if len(hits) == 1:
            # One list's order is the fused order: only its head is blended.
            hits = {name: head(found, limit) for name, found in hits.items()}
        bm25 = hits.get("bm25", [])
        bound = self.statistics(lists.text, lists.namespace).bound if "bm25" in hits else 0.0
        keyword = {h.key: h.score / bound if bound > 0 else 0.0 for h in bm25}
        cosines = {h.key: h.score for h in hits.get("vector", [])}
        if len(hits) == 2 and vector is not None:
            # What BM25 alone found needs its cosine, from the ledger's vectors.
            alone = [h.key for h in bm25 if h.key not in cosines]
            cosines.update(ledger_cosines(vector, alone, self.chunk_vectors))
            if self.unembedded is not None:
                # Best BM25 first: the candidates most likely to reach the ranking.
                unvectored = [h.key for h in bm25 if h.key not in cosines]
                cosines.update(self.unembedded(lists.text, vector, unvectored))
        fused = blend(keys_of(hits), keyword, cosines, self.keyword_share)
        return explained(fused[:limit], hits, cosines if vector is not None else {})


class RankFusion(Fusion):
    """Fusion by rank (``fuse``, weighted RRF). Ranks say nothing of how well an entry
    matches, so the relevance is the cosine of query and best chunk: the vector list's, else
    one computed from the entry's vectors in the ledger; None for an entry without vectors."""

    def __init__(self, weights: Mapping[str, float], k: float, chunk_vectors: ChunkVectors) -> None:
        self.weights = dict(weights)
        self.k = k
        self.chunk_vectors = chunk_vectors

    def fuse(self, lists: Lists, limit: int) -> list[FusedHit]:
        fused = fuse(keys_of(lists.hits), self.weights, self.k)
        return explained(fused[:limit], lists.hits)

    def relevances(
        self, hits: Sequence[FusedHit], vector: Sequence[float] | None
    ) -> dict[str, float | None]:
        known = {h.key: h.vector_hit.score for h in hits if h.vector_hit is not None}
        if vector is not None:
            unknown = [h.key for h in hits if h.key not in known]
            known.update(ledger_cosines(vector, unknown, self.chunk_vectors))
        return {h.key: known.get(h.key) for h in hits}


def ledger_cosines(
    vector: Sequence[float], keys: Sequence[str], chunk_vectors: ChunkVectors
) -> dict[str, float]:
    """Each entry's best chunk cosine with the query, from the ledger's vectors, read
    ``VECTOR_BATCH`` entries at a time; entries without vectors are left out."""
    found: dict[str, float] = {}
    for start in range(0, len(keys), VECTOR_BATCH):
        found.update(best_cosines(vector, chunk_vectors(keys[start : start + VECTOR_BATCH])))
    return found


def head(hits: Sequence[Hit], limit: int) -> Sequence[Hit]:
    """The first ``limit`` (at least one) hits of a list in order (``in_order``), and those
    after them whose score reads as the last one's: ordered by their exact scores, any of
    them could be among the first ``limit``."""
    if limit >= len(hits):
        return hits
    end = max(limit, 1)
    last = round(hits[end - 1].score, ORDER_PLACES)
    while end < len(hits) and round(hits[end].score, ORDER_PLACES) == last:
        end += 1
    return hits[:end]


def keys_of(lists: Mapping[str, Sequence[Hit]]) -> dict[str, list[str]]:
    return {name: [h.key for h in hits] for name, hits in lists.items()}


def explained(
    fused: Sequence[Fused],
    lists: Mapping[str, Sequence[Hit]],
    cosines: Mapping[str, float] | None = None,
) -> list[FusedHit]:
    """Fused keys with each list's rank and store score, and their vector hit. An entry the
    vector list did not find but whose cosine was measured (``cosines``: from the ledger's
    vectors, or at query time) shows it as a ``vector`` part of rank 0: scored, not ranked."""
    by_list = {name: {h.key: h for h in hits} for name, hits in lists.items()}
    vector_hits = by_list.get("vector", {})
    keyword_hits = by_list.get("bm25", {})
    measured = cosines or {}
    found = []
    for f in fused:
        parts = {
            name: ListExplain(rank, by_list[name][f.key].score) for name, rank in f.ranks.items()
        }
        if "vector" not in parts and f.key in measured:
            parts["vector"] = ListExplain(0, measured[f.key])
        found.append(
            FusedHit(
                f.key, f.score, parts, vector_hits.get(f.key), keyword_hit=keyword_hits.get(f.key)
            )
        )
    return found
