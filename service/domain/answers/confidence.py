"""How sure a retrieve is that it found the answer: the evidence a search leaves about its
own success, and a calibrated probability made of it.

One score is a poor judge: a loosely related entry can score as high as the answer, and a
short, specific answer can score low. What tells a found answer from a miss is how the
results look as a whole: the best one stands out from the rest (margin), the BM25 and
vector lists agree on it (agreement), it holds what the question asks about (coverage),
and it is close in meaning and in words (cosine, keyword). A question about something
memory never recorded (another team's namespace, a topic never discussed) leaves all of
them low at once.

The probability is a logistic function of those features, fitted by ``strata calibrate``
(``service/calibrate.py``) on a set of questions with known answers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from service.domain.numbers import finite, read_weights, sigmoid, unit
from service.domain.search.query import SearchResult
from service.domain.text import READ_CHARS, content_terms, stems
from service.errors import ConfigError

FEATURES = (
    "margin",
    "agreement",
    "coverage",
    "cosine",
    "keyword",
    "found",
    "runners_up",
    "match_margin",
    "rerank",
)
MARGIN_RUNNERS_UP = 9
"""The best result's margin is its score above the mean of the next this many."""
AGREEMENT_RESULTS = 5
"""Agreement looks at the first this many results..."""
AGREEMENT_DEPTH = 10
"""...and counts those both lists ranked within this depth."""
MATCH_KEYWORD_SHARE = 0.7
"""``match_margin`` mixes each result's BM25 score over its bound and its cosine as score
fusion does by default, so the margin does not depend on how the results were ranked."""


@dataclass(frozen=True)
class Evidence:
    """What a retrieve's search says of its own success, each in [0, 1] (``rerank``: None
    without a cross-encoder)."""

    margin: float
    """The best result's score above the mean of the runners-up."""
    agreement: float
    """Share of the first results that BM25 and the vectors both ranked near the top."""
    coverage: float
    """Share of the question's content words that the best result holds."""
    cosine: float
    """The best result's cosine with the question (0 when unknown)."""
    keyword: float
    """The best result's BM25 score over the best any entry could get for the question."""
    found: float = 0.0
    """1 - the product of (1 - relevance) over the entries returned: with a learned fusion,
    whose relevance is the probability that an entry is relevant, the chance that one is."""
    runners_up: float = 0.0
    """The mean score of the runners-up: a crowd of near-equals says the question is vague."""
    match_margin: float = 0.0
    """The best match (BM25 over its bound mixed with the cosine) above the runners-up's."""
    rerank: float | None = None
    """The cross-encoder's score of the best result."""

    def features(self) -> dict[str, float]:
        found = {
            "margin": self.margin,
            "agreement": self.agreement,
            "coverage": self.coverage,
            "cosine": self.cosine,
            "keyword": self.keyword,
            "found": self.found,
            "runners_up": self.runners_up,
            "match_margin": self.match_margin,
        }
        if self.rerank is not None:
            found["rerank"] = self.rerank
        return found


NO_EVIDENCE = Evidence(margin=0.0, agreement=0.0, coverage=0.0, cosine=0.0, keyword=0.0)


def gather(
    question: str,
    results: Sequence[SearchResult],
    returned: Sequence[SearchResult],
    keyword_bound: float,
) -> Evidence:
    """The evidence of a search: ``results`` best first (with ``explain``), ``returned`` the
    results the answer gives, its first first, ``keyword_bound`` the BM25 bound of the
    question."""
    if not results or not returned:
        return NO_EVIDENCE
    best = returned[0]
    scores = [r.score for r in results]
    margin = scores[0] - _runners_up(scores)
    matches = sorted((_match(r, keyword_bound) for r in results), reverse=True)
    head = results[:AGREEMENT_RESULTS]
    agreement = sum(1 for r in head if _both_near_top(r)) / AGREEMENT_RESULTS
    asked = stems(content_terms(question))
    held = stems(content_terms(f"{best.entry.speaker or ''} {best.entry.text[:READ_CHARS]}"))
    parts = best.explain or {}
    keyword = parts["bm25"].score / keyword_bound if "bm25" in parts and keyword_bound > 0 else 0
    return Evidence(
        margin=unit(margin, 0.0),
        agreement=agreement,
        coverage=len(asked & held) / len(asked) if asked else 0.0,
        cosine=unit(parts["vector"].score, 0.0) if "vector" in parts else 0.0,
        keyword=unit(keyword, 0.0),
        found=1 - math.prod(1 - unit(r.relevance or 0.0, 0.0) for r in returned),
        runners_up=unit(_runners_up(scores), 0.0),
        match_margin=unit(matches[0] - _runners_up(matches), 0.0),
        rerank=unit(parts["rerank"].score, 0.0) if "rerank" in parts else None,
    )


def _runners_up(scores: Sequence[float]) -> float:
    """The mean of the scores after the first (best first), up to ``MARGIN_RUNNERS_UP``."""
    following = scores[1 : 1 + MARGIN_RUNNERS_UP]
    return sum(following) / len(following) if following else 0.0


def _match(result: SearchResult, keyword_bound: float) -> float:
    parts = result.explain or {}
    keyword = parts["bm25"].score / keyword_bound if "bm25" in parts and keyword_bound > 0 else 0.0
    cosine = parts["vector"].score if "vector" in parts else 0.0
    return MATCH_KEYWORD_SHARE * unit(keyword, 0.0) + (1 - MATCH_KEYWORD_SHARE) * unit(cosine, 0.0)


def _both_near_top(result: SearchResult) -> bool:
    parts = result.explain or {}
    ranks = [parts[name].rank for name in ("bm25", "vector") if name in parts]
    return len(ranks) == 2 and all(0 < rank <= AGREEMENT_DEPTH for rank in ranks)


@dataclass(frozen=True)
class Calibration:
    """A logistic model of "a relevant entry is among those returned" over the evidence."""

    bias: float
    weights: Mapping[str, float]
    """By feature of ``FEATURES``; a feature without a weight does not count."""
    threshold: float
    """The confidence at which the fitting set's Youden's J was best: the recommended
    ``STRATA_STRONG_MATCH_THRESHOLD``."""
    source: str = ""
    """What it was fitted on."""

    def confidence(self, evidence: Evidence) -> float:
        return self.probability(evidence.features())

    def probability(self, features: Mapping[str, float]) -> float:
        return sigmoid(
            self.bias + sum(self.weights.get(name, 0.0) * v for name, v in features.items())
        )

    def to_json(self) -> str:
        fields = {"bias": self.bias, "weights": dict(self.weights), "threshold": self.threshold}
        return json.dumps({**fields, "source": self.source}, indent=2) + "\n"

    @classmethod
    def load(cls, path: Path) -> Calibration:
        """A calibration written by ``strata calibrate``; ConfigError naming what is wrong."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            weights = read_weights(raw, FEATURES)
            threshold = float(raw["threshold"])
            if not 0 <= threshold <= 1:
                raise ValueError(f"threshold {threshold} is not in [0, 1]")
            bias = finite(raw["bias"])
            return cls(bias, weights, threshold, str(raw.get("source", "")))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"calibration {path}: {exc}") from exc


SHIPPED = Path(__file__).with_name("calibration.json")
"""The calibration fitted on the development sets (see docs/benchmarks.md)."""
