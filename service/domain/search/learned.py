"""Learned fusion: one score per candidate from evidence every tier has, so an entry with no
vector (tier E, archived tier C) competes fairly with embedded ones and nothing is embedded
at query time.

A blend of BM25 and cosine reads a missing cosine as 0, and a keyword-only candidate sinks
below every embedded entry that merely shares a word with the query. Here the cosine is one
feature among others, with an indicator of its absence, so the model learns how far keyword
evidence alone should carry an entry (``FEATURES``). The weights come from ``strata
calibrate``, fitted on question sets with known answers (a softmax over each question's
candidates: a listwise ranking loss), and a logistic map of the weighted sum to the
probability that a candidate is relevant, so the score means the same across queries.

It runs in two stages, with the same ledger queries as a plain hybrid search: the list
features order the whole pool (by weights of their own, fitted on them alone) and pick the
candidates to load (``SETTLED`` at least); once their entries are loaded, the text features
(coverage of the question's words, length) and the kind features (the candidate's kind
against what the question asks for, ``service.domain.search.intent``) complete each score.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np
import numpy.typing as npt

from service.domain.entries import Entry
from service.domain.numbers import finite, read_weights, sigmoid
from service.domain.search.answerable import AnswerableModel, answerable_features
from service.domain.search.fusion import (
    ChunkVectors,
    Fused,
    FusedHit,
    Fusion,
    ScoreFusion,
    explained,
    ledger_cosines,
)
from service.domain.search.held import HeldTerms
from service.domain.search.intent import KIND_FEATURES, IntentHead, asks_for_decision, kind_features
from service.domain.search.list_features import (
    LIST_FEATURES,
    ListFeatures,
    first_ranks,
    list_features,
)
from service.domain.search.query import Candidate, ListExplain, Lists
from service.domain.text import READ_CHARS, content_terms, named_terms, stems
from service.errors import ConfigError

TEXT_FEATURES = ("coverage", "coverage_unembedded", "length", "speaker_named")
"""Known once the candidate's text is loaded."""
ANSWERABLE_TEXT_FEATURES = ("names",)
"""Given with the text features for the answerable model (``service.domain.search.answerable``);
the ranking does not weigh them: as a ranking feature, ``names`` moved no dev set's R@10 by
more than 0.001."""
REVISION_FEATURES = ("replaces",)
"""How well the entries a candidate replaced matched the question (``replaced_match`` of
``service.domain.search.hydration``): superseded entries are never shown, and the one that
replaced them answers for them."""
ENTRY_FEATURES = TEXT_FEATURES + KIND_FEATURES + REVISION_FEATURES
"""Known once the candidate's entry is loaded: its text, its kind against what the
question asks for, and what it replaced."""
FEATURES = LIST_FEATURES + ENTRY_FEATURES
ASKED_FEATURES = ("decision_asked", "log_asked", "discussion_asked", "decision_cued")
"""The kind features that depend on the question: all that weighs a search of one list."""
HELD = HeldTerms()
"""The terms of the texts the searches of this process loaded last."""
SETTLED = 30
"""Fewest candidates loaded and scored with their text features: those features can lift a
candidate from below the page (on locomo-tiers-dev at limit 10, R@10 0.653 when 20 are
settled, 0.662 with 30)."""
LENGTH_WORDS = 150
"""``length`` counts words up to one chunk's worth: the sets the model learned from hold
turns and sentences, so what it says of length is not stretched to long documents (a long
entry is matched by its best chunk anyway)."""
LENGTH_SCALE = 5.0
"""``length`` is log(1 + words) / this: about 1 at ``LENGTH_WORDS``."""


@dataclass(frozen=True)
class RankingModel:
    """Feature weights and the logistic map of their sum to a probability of relevance."""

    weights: Mapping[str, float]
    """By feature of ``FEATURES``; a feature without a weight does not count."""
    scale: float
    bias: float
    source: str = ""
    """What it was fitted on."""
    list_weights: Mapping[str, float] | None = None
    """By feature of ``LIST_FEATURES``: the weights that order the pool before any entry is
    loaded, fitted on the list features alone; None: ``weights``' own."""
    intent: IntentHead | None = None
    """What kind of memory a question asks for; None: unknown (the kind features that
    need it count 0)."""
    answerable: AnswerableModel | None = None
    """Whether a search's candidates hold an answer at all; None: taken as certain."""

    def logit(self, features: Mapping[str, float]) -> float:
        return sum(self.weights.get(name, 0.0) * value for name, value in features.items())

    def probability(self, logit: float) -> float:
        return sigmoid(self.scale * logit + self.bias)

    @property
    def pool_weights(self) -> Mapping[str, float]:
        """The weights that order the pool."""
        return self.weights if self.list_weights is None else self.list_weights

    def to_json(self) -> str:
        fields: dict[str, object] = {
            "weights": dict(self.weights),
            "list_weights": None if self.list_weights is None else dict(self.list_weights),
            "scale": self.scale,
            "bias": self.bias,
            "source": self.source,
        }
        if self.intent is not None:
            fields["intent"] = self.intent.to_dict()
        if self.answerable is not None:
            fields["answerable"] = self.answerable.to_dict()
        return json.dumps(fields, indent=1) + "\n"

    @classmethod
    def load(cls, path: Path) -> RankingModel:
        """A model written by ``strata calibrate``; ConfigError naming what is wrong."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            weights = read_weights(raw, FEATURES)
            listed = raw.get("list_weights")
            pool = None if listed is None else read_weights({"weights": listed}, LIST_FEATURES)
            intent = IntentHead.from_dict(raw["intent"]) if raw.get("intent") else None
            answerable = (
                AnswerableModel.from_dict(raw["answerable"]) if raw.get("answerable") else None
            )
            scale, bias = finite(raw["scale"]), finite(raw["bias"])
            source = str(raw.get("source", ""))
            return cls(weights, scale, bias, source, pool, intent, answerable)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"ranking model {path}: {exc}") from exc


SHIPPED = Path(__file__).with_name("ranking.json")
"""The model fitted on the development sets (see docs/benchmarks.md)."""


def with_log_odds(probability: float, shift: float) -> float:
    """``probability`` with ``shift`` added to its log-odds: still in [0, 1], 0 and 1 kept."""
    if shift == 0 or probability <= 0.0 or probability >= 1.0:
        return probability
    return sigmoid(math.log(probability / (1 - probability)) + shift)


def pool_logits(
    matrix: npt.NDArray[np.float64], pool_weights: Mapping[str, float]
) -> npt.NDArray[np.float64]:
    """The pool logit of each row of ``matrix`` (a row of ``LIST_FEATURES`` per candidate)
    by ``pool_weights`` (``RankingModel.pool_weights``)."""
    weights = np.array([pool_weights.get(name, 0.0) for name in LIST_FEATURES])
    return matrix @ weights  # type: ignore[no-any-return]


def settled_rows(logits: npt.NDArray[np.float64], count: int) -> list[int]:
    """The rows of a pool a search loads and settles: the ``count`` of highest pool logit,
    ties in list order."""
    return np.argsort(-logits, kind="stable")[:count].tolist()  # type: ignore[no-any-return]


def entry_features(
    terms: set[str],
    entry: Entry,
    unembedded: float,
    asked: Mapping[str, float],
    cued: bool,
    named: set[str] | None = None,
    replaced: float = 0.0,
) -> dict[str, float]:
    """The entry features of a loaded candidate: its text's (``terms``: the question's
    content words; ``named``: its names), its kind's against what the question asks
    (``asked``: the probability of each kind; ``cued``: the question names deciding) and
    how well what it replaced matched (``replaced``)."""
    return {
        **text_features(terms, entry, unembedded, named),
        **kind_features(entry, asked, cued),
        "replaces": replaced,
    }


def text_features(
    asked: set[str], entry: Entry, unembedded: float, named: set[str] | None = None
) -> dict[str, float]:
    """The text features of a loaded candidate; ``asked``: the question's content words,
    ``named``: those of them it names (``named_terms``), whose share the entry holds is
    ``names`` (1 when the question names nothing); ``speaker_named``: the entry's speaker
    is one the question names (in conversations, the evidence for "when did Caroline go to
    the support group?" is mostly Caroline's own turns and the facts about her)."""
    speaker = entry.speaker or ""
    held = HELD.of(f"{speaker} {entry.text[:READ_CHARS]}")
    # Word forms alike: "peanut allergy" is covered by "allergic to peanuts" as far as
    # their stems go.
    stemmed = stems(asked)
    coverage = len(stemmed & held.stems) / len(stemmed) if stemmed else 0.0
    named = named or set()
    return {
        "coverage": coverage,
        "coverage_unembedded": unembedded * coverage,
        # The text's words: the held text's, less the speaker's in front of them.
        "length": math.log1p(min(held.words - len(speaker.split()), LENGTH_WORDS)) / LENGTH_SCALE,
        "speaker_named": float(bool(named and named & content_terms(speaker))),
        "names": len(named & held.terms) / len(named) if named else 1.0,
    }


@dataclass(frozen=True)
class Pool:
    """A search's candidates before any is loaded."""

    features: ListFeatures
    cosines: Mapping[str, float]
    """The cosines known, from the vector list or the ledger's vectors."""


@dataclass(eq=False)
class LearnedFusion(Fusion):
    """Fusion by ``RankingModel`` when both lists were searched; a search of one list is
    scored as ``ScoreFusion`` scores it (the BM25 score over its bound, or the cosine)."""

    model: RankingModel
    single: ScoreFusion
    """Scores a search of one list."""
    chunk_vectors: ChunkVectors

    def pool(self, lists: Lists) -> Pool:
        """Every candidate's list features, for lists of an embedded query; the cosines of
        BM25 candidates the vector list did not find come from the ledger's vectors (none is
        embedded now)."""
        if lists.vector is None:
            raise ValueError("the ranking model weighs the lists of an embedded query")
        bm25, found = lists.hits.get("bm25", []), lists.hits.get("vector", [])
        cosines = {h.key: h.score for h in found}
        alone = [h.key for h in bm25 if h.key not in cosines]
        cosines.update(ledger_cosines(lists.vector, alone, self.chunk_vectors))
        statistics = self.single.statistics(lists.text, lists.namespace)
        features = list_features(bm25, statistics.bound, cosines, found, statistics.documents)
        return Pool(features, cosines)

    def fuse(self, lists: Lists, limit: int) -> list[FusedHit]:
        if len(lists.hits) < 2 or lists.vector is None:
            return self.single.fuse(lists, limit)
        pool = self.pool(lists)
        # Entry features are not known yet: the list features order the pool, by weights
        # fitted on them alone (until ``settle`` completes each score).
        logits = pool_logits(pool.features.matrix, self.model.pool_weights)
        order = settled_rows(logits, max(limit, SETTLED))
        ranks = {name: first_ranks(hits) for name, hits in lists.hits.items()}
        keys = pool.features.keys
        fused = [
            Fused(
                keys[row],
                self.model.probability(float(logits[row])),
                {name: found[keys[row]] for name, found in ranks.items() if keys[row] in found},
            )
            for row in order
        ]
        return [
            hit._replace(features=pool.features.of(row))
            for hit, row in zip(explained(fused, lists.hits, pool.cosines), order, strict=True)
        ]

    def settle(self, lists: Lists, candidates: list[Candidate], explain: bool) -> list[Candidate]:
        """The loaded candidates scored with every feature, best first; with ``explain``,
        each feature's part of the logit is in their ``explain`` (``model.<feature>``), and
        the parts of the kind features together as ``intent``. A candidate of a search of
        one list (no list features: ``bm25`` mode, or a search without the model) keeps that
        list's score, its odds moved by what the question asks of its kind (``ASKED_FEATURES``)
        as the model weighs it."""
        terms, named = content_terms(lists.text), named_terms(lists.text)
        asked = self.model.intent.asked(lists.vector) if self.model.intent is not None else {}
        cued = asks_for_decision(lists.text)
        if not asked and not cued and all(c.features is None for c in candidates):
            # A search of one list whose question asks for no kind: its scores stand.
            candidates.sort(key=lambda c: -c.score)
            return candidates
        scored: list[tuple[Candidate, dict[str, float]]] = []
        weight = self.model.weights.get
        for candidate in candidates:
            listed = candidate.features
            kinds = kind_features(candidate.entry, asked, cued)
            # Only what the question asks moves a list's own score: the kinds' own weights
            # were fitted beside the list features, which a search of one list lacks.
            moving = KIND_FEATURES if listed is not None else ASKED_FEATURES
            intent = sum(weight(name, 0.0) * kinds[name] for name in moving)
            if intent and explain:
                candidate.explain["intent"] = ListExplain(0, round(intent, 6))
            if listed is None:
                candidate.score = with_log_odds(candidate.score, self.model.scale * intent)
                continue
            unembedded = listed["unembedded"]
            features = {
                **listed,
                **text_features(terms, candidate.entry, unembedded, named),
                "replaces": candidate.replaced_match,
            }
            logit = 0.0
            for name, value in chain(features.items(), kinds.items()):  # no name in both
                part = weight(name, 0.0) * value
                if part and explain:
                    candidate.explain[f"model.{name}"] = ListExplain(0, round(part, 6))
                logit += part
            candidate.score = self.model.probability(logit)
            scored.append((candidate, features))
        self._weigh_answerable(scored, explain)
        candidates.sort(key=lambda c: -c.score)
        return candidates

    def _weigh_answerable(
        self, scored: Sequence[tuple[Candidate, Mapping[str, float]]], explain: bool
    ) -> None:
        """Each scored candidate's probability of relevance times the probability that the
        candidates hold an answer at all (``service.domain.search.answerable``): the same factor
        for every candidate, so their order stands."""
        answerable = self.model.answerable
        held = 1.0
        if answerable is not None:
            features = answerable_features(
                [f for _, f in scored], [candidate.score for candidate, _ in scored]
            )
            # Its evidence is mostly the closest vector: in a pool without one (a namespace
            # of tier E alone), it has nothing to say and leaves the scores be.
            if features["cosine_best"] > 0:
                held = answerable.probability(features)
        for candidate, _ in scored:
            candidate.score *= held
            candidate.relevance = candidate.score
            if explain and held != 1.0:
                candidate.explain["answerable"] = ListExplain(0, round(held, 6))
