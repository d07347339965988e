"""What a search knows of its candidates from the two result lists alone, before any entry
is loaded: each one's keyword score and cosine (bounded, and over the best), whether it has
a vector, and its rank in each list (``LIST_FEATURES``). The learned fusion orders its pool
by them (``service.domain.search.learned``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from service.domain.model import ORDER_PLACES, Hit

LIST_FEATURES = (
    "keyword",
    "keyword_top",
    "cosine",
    "cosine_top",
    "unembedded",
    "keyword_unembedded",
    "keyword_top_unembedded",
    "bm25_rank",
    "vector_rank",
    "bm25_rank_unembedded",
    "memory",
)
"""Known from the result lists (and the ledger's stored vectors) before any entry is loaded;
``memory`` is how much the namespace holds, the same for every candidate of a search."""
MEMORY_SCALE = 10.0
"""``memory`` is log(1 + documents in the namespace's keyword index) / this: 0.33 for a
namespace of 25 entries, 0.73 for 1,500, 1.15 for 100,000."""
CLOSEST = "closest"
"""Beside each row's list features: the pool's best cosine (``ListFeatures.closest``), for the
answerable model (``service.domain.search.answerable``); the ranking does not weigh it."""


def rank_feature(rank: int) -> float:
    """1 at rank 1, falling slowly (1 / (1 + log2 rank)); 0 when the list did not rank it."""
    return 1 / (1 + math.log2(rank)) if rank > 0 else 0.0


def first_ranks(hits: Sequence[Hit]) -> dict[str, int]:
    """Each key's 1-based rank in a list sorted best first, at its first appearance."""
    ranks: dict[str, int] = {}
    for n, hit in enumerate(hits, start=1):
        ranks.setdefault(hit.key, n)
    return ranks


@dataclass(frozen=True)
class ListFeatures:
    """The list features of a search's candidates: a row of ``LIST_FEATURES`` per key."""

    keys: list[str]
    matrix: npt.NDArray[np.float64]
    closest: float = 0.0
    """The best cosine of any candidate (0: none has a vector): how near the question the
    namespace's memory comes, whichever candidates a search goes on to load."""

    def of(self, row: int) -> dict[str, float]:
        """The row's ``LIST_FEATURES``, and the pool's ``closest`` (``CLOSEST``)."""
        listed = dict(zip(LIST_FEATURES, self._rows[row], strict=True))
        return {**listed, CLOSEST: self.closest}

    @cached_property
    def _rows(self) -> list[list[float]]:
        """The matrix as Python numbers, read once for every row asked."""
        return self.matrix.tolist()  # type: ignore[no-any-return]


def list_features(
    bm25: Sequence[Hit],
    bound: float,
    cosines: Mapping[str, float],
    vector: Sequence[Hit],
    documents: int = 0,
) -> ListFeatures:
    """The list features of every candidate of the two lists (each sorted best first), in
    the order the lists give them. ``cosines``: each candidate's cosine with the query where
    it is known (the vector list's, else from the ledger's vectors); ``documents``: those
    of the namespace's keyword index.

    A candidate's chance of being the answer depends on how many others it stands among:
    the best match of 25 entries is likelier the one asked for than the best of 100,000
    that looks as close. ``memory`` lets the model's map to a probability say so (the
    ranking within a search is the same for every value)."""
    bm25_ranks, vector_ranks = first_ranks(bm25), first_ranks(vector)
    keys = list(dict.fromkeys([*bm25_ranks, *vector_ranks]))
    keyword: dict[str, float] = {}
    for hit in bm25:
        keyword.setdefault(hit.key, hit.score)
    # Read to ORDER_PLACES, as the lists are sorted: an index rebuilt from the same vectors may
    # differ in the last bits of a cosine, and a ranking must not.
    score = np.round(np.array([keyword.get(k, 0.0) for k in keys]), ORDER_PLACES)
    cosine = np.round(np.array([cosines.get(k, 0.0) for k in keys]), ORDER_PLACES).clip(0.0)
    unembedded = np.array([k not in cosines for k in keys], dtype=np.float64)
    best_keyword, best_cosine = score.max(initial=0.0), cosine.max(initial=0.0)
    bounded = (score / bound).clip(max=1.0) if bound > 0 else np.zeros(len(keys))
    relative = score / best_keyword if best_keyword > 0 else np.zeros(len(keys))
    bm25_rank = np.array([rank_feature(bm25_ranks.get(k, 0)) for k in keys])
    columns = {
        "keyword": bounded,
        "keyword_top": relative,
        "cosine": cosine,
        "cosine_top": cosine / best_cosine if best_cosine > 0 else np.zeros(len(keys)),
        "unembedded": unembedded,
        "keyword_unembedded": unembedded * bounded,
        "keyword_top_unembedded": unembedded * relative,
        "bm25_rank": bm25_rank,
        "vector_rank": np.array([rank_feature(vector_ranks.get(k, 0)) for k in keys]),
        "bm25_rank_unembedded": unembedded * bm25_rank,
        "memory": np.full(len(keys), math.log1p(documents) / MEMORY_SCALE),
    }
    matrix = (
        np.column_stack([columns[name] for name in LIST_FEATURES])
        if keys
        else np.zeros((0, len(LIST_FEATURES)))
    )
    return ListFeatures(keys, matrix, float(best_cosine))
