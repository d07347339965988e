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
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import Stemmer

from service.domain.search.query import SearchResult
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

_WORD = re.compile(r"\w+")
_LONG_WORD = re.compile(r"\w{3,}")
STOPWORDS = frozenset(
    """a an the and or but if of at by for with about against between into through during
    before after above below to from up down in out on off over under again further then once
    here there when where why how all any both each few more most other some such no nor not
    only own same so than too very can will just should now what which who whom whose this
    that these those am is are was were be been being have has had having do does did doing
    i me my myself we our ours ourselves you your yours yourself he him his himself she her
    hers herself it its itself they them their theirs themselves would could might must shall
    may also ever""".split()  # noqa: SIM905 (a list of words reads better as text)
)
"""English function words: a question's content is what is left."""


def content_terms(text: str) -> set[str]:
    """The words of ``text`` that carry its content: longer than two letters, not a
    function word, lower case."""
    if text.isascii():  # lower case changes no word's bounds or length: all in C
        return set(_LONG_WORD.findall(text.lower())) - STOPWORDS
    return {w for w in (m.lower() for m in _WORD.findall(text)) if len(w) > 2} - STOPWORDS


READ_CHARS = 20_000
"""Characters of an entry's text whose words a search weighs (the ranking's text features,
a retrieve's coverage): a long entry's words past these would cost every search that loads
it, and the dev sets' longest entry is 5,480 characters."""

_STEMMERS = threading.local()
"""A stemmer per thread: one is not safe to share."""
STEMS_CACHED = 65_536


@lru_cache(maxsize=STEMS_CACHED)
def _stem(word: str) -> str:
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = Stemmer.Stemmer("english")
    return str(stemmer.stemWord(word))


def stems(words: Iterable[str]) -> set[str]:
    """The words' English stems (Snowball's, as the keyword index's), so "peanuts" holds
    "peanut" and "embedding" "embeddings"."""
    return {_stem(w) for w in words}


_TOKEN = re.compile(r"\S+")
_QUOTES = "\"'()[]{}<>,;\u201c\u201d\u2018\u2019"
_SENTENCE_ENDS = (".", "?", "!", ":")


def named_terms(text: str) -> set[str]:
    """The content words of ``text`` written with a capital where no sentence begins
    ("Caroline", "ECR", "GOV.UK"): the names a question asks about. A question about a
    person, a product or a place memory never recorded names what no entry holds."""
    named: set[str] = set()
    begins = True
    for token in _TOKEN.findall(text):
        word = token.strip(_QUOTES)
        if not begins and any(c.isupper() for c in word):
            named |= content_terms(word)
        begins = token.rstrip(_QUOTES).endswith(_SENTENCE_ENDS)
    return named


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
        margin=_unit(margin),
        agreement=agreement,
        coverage=len(asked & held) / len(asked) if asked else 0.0,
        cosine=_unit(parts["vector"].score) if "vector" in parts else 0.0,
        keyword=_unit(keyword),
        found=1 - math.prod(1 - _unit(r.relevance or 0.0) for r in returned),
        runners_up=_unit(_runners_up(scores)),
        match_margin=_unit(matches[0] - _runners_up(matches)),
        rerank=_unit(parts["rerank"].score) if "rerank" in parts else None,
    )


def _runners_up(scores: Sequence[float]) -> float:
    """The mean of the scores after the first (best first), up to ``MARGIN_RUNNERS_UP``."""
    following = scores[1 : 1 + MARGIN_RUNNERS_UP]
    return sum(following) / len(following) if following else 0.0


def _match(result: SearchResult, keyword_bound: float) -> float:
    parts = result.explain or {}
    keyword = parts["bm25"].score / keyword_bound if "bm25" in parts and keyword_bound > 0 else 0.0
    cosine = parts["vector"].score if "vector" in parts else 0.0
    return MATCH_KEYWORD_SHARE * _unit(keyword) + (1 - MATCH_KEYWORD_SHARE) * _unit(cosine)


def _both_near_top(result: SearchResult) -> bool:
    parts = result.explain or {}
    ranks = [parts[name].rank for name in ("bm25", "vector") if name in parts]
    return len(ranks) == 2 and all(0 < rank <= AGREEMENT_DEPTH for rank in ranks)


def _unit(value: float) -> float:
    return min(max(value, 0.0), 1.0)


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


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-max(min(z, 40.0), -40.0)))


def finite(value: object) -> float:
    """``value`` as a finite number; ValueError otherwise."""
    number = float(value)  # type: ignore[arg-type]
    if not math.isfinite(number):
        raise ValueError(f"{value!r} is not a finite number")
    return number


def read_weights(raw: Mapping[str, Any], known: Sequence[str]) -> dict[str, float]:
    """The ``weights`` of a model file written by ``strata calibrate``: finite numbers, each
    of a feature in ``known``; ValueError naming what is wrong."""
    weights = {str(k): finite(v) for k, v in raw["weights"].items()}
    unknown = sorted(set(weights) - set(known))
    if unknown:
        raise ValueError(f"unknown features {unknown}; known: {list(known)}")
    return weights


SHIPPED = Path(__file__).with_name("calibration.json")
"""The calibration fitted on the development sets (see docs/benchmarks.md)."""
