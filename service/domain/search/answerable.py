"""Whether a search's candidates hold an answer at all.

The ranking model's probability is fitted on questions whose answer is in memory, over
features that are mostly relative to the question's own candidates (ranks, scores over the
best): it says which candidate answers *if one does*, and the best candidate of a question
memory never recorded looks much like the best of one it did. What tells the two apart is
absolute evidence of the best candidates: how close the closest vector of the whole pool
is (whether or not the search loads that candidate), how much of the question's words the
best-covered entry holds, how high the best keyword score reaches against its bound, and how
relevant the ranking found the best candidate. ``AnswerableModel`` is a logistic model over
those, fitted by ``strata calibrate`` on questions asked where they belong and where they do
not; a question that names a person, a product or a place ("Caroline", "ECR") that even the
best candidate does not hold is then told less likely to be answered (``names_missing``,
fitted after the rest, so a question that names nothing is judged as without it). A
candidate's score is the ranking model's probability times this one, so that "relevant"
means relevant, not "the best of what there was".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.domain.numbers import sigmoid
from service.domain.search.list_features import CLOSEST

EVIDENCE_FEATURES = ("cosine_best", "keyword_best", "coverage_best", "relevance_best")
"""What the candidates' closeness says."""
LOWERING_FEATURES = ("memory", "names_missing")
"""What only ever lowers the probability, fitted after the evidence: how much the namespace
holds (``memory``, a list feature: the best of 100,000 entries comes nearer an unrelated
question than the best of 25 does, by chance alone) and the share of the question's names
that no candidate holds."""
ANSWERABLE_FEATURES = (*EVIDENCE_FEATURES, *LOWERING_FEATURES)
RELEVANCE_BOUND = 1e-6
"""The best relevance is read as log-odds, its probability kept this far from 0 and 1."""


def answerable_features(
    rows: Sequence[Mapping[str, float]], relevance: Sequence[float]
) -> dict[str, float]:
    """The features of a search's scored candidates (rows of the learned fusion's features,
    with ``relevance`` each one's probability of relevance by the ranking): the best cosine
    of the pool, the best bounded keyword score, the best coverage of the question's content
    words, the log-odds of the best relevance, how much the namespace holds, and the share
    of the question's names that even the best candidate lacks (0 when it names nothing); 0
    each when there is no candidate."""
    if not rows:
        return dict.fromkeys(ANSWERABLE_FEATURES, 0.0)
    best = min(max(max(relevance, default=0.0), RELEVANCE_BOUND), 1 - RELEVANCE_BOUND)
    return {
        "cosine_best": max(max(row.get(CLOSEST, 0.0), row.get("cosine", 0.0)) for row in rows),
        "keyword_best": max(row.get("keyword", 0.0) for row in rows),
        "coverage_best": max(row.get("coverage", 0.0) for row in rows),
        "relevance_best": math.log(best / (1 - best)),
        "memory": rows[0].get("memory", 0.0),
        "names_missing": 1.0 - max(row.get("names", 1.0) for row in rows),
    }


@dataclass(frozen=True)
class AnswerableModel:
    """The probability that a search's candidates hold an answer, from
    ``answerable_features``."""

    weights: Mapping[str, float]
    bias: float

    def probability(self, features: Mapping[str, float]) -> float:
        logit = self.bias + sum(
            self.weights.get(name, 0.0) * value for name, value in features.items()
        )
        return sigmoid(logit)

    def to_dict(self) -> dict[str, Any]:
        return {"weights": dict(self.weights), "bias": self.bias}

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> AnswerableModel:
        """The model of a ranking file; ValueError naming what is wrong."""
        weights = {str(k): float(v) for k, v in raw["weights"].items()}
        unknown = sorted(set(weights) - set(ANSWERABLE_FEATURES))
        if unknown:
            raise ValueError(
                f"answerable: unknown features {unknown}; known: {list(ANSWERABLE_FEATURES)}"
            )
        bias = float(raw["bias"])
        if any(v != v or abs(v) == float("inf") for v in (*weights.values(), bias)):
            raise ValueError("answerable: weights and bias must be finite numbers")
        return cls(weights, bias)
