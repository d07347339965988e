"""``strata calibrate``: fit the learned fusion's ranking model and ``answer_confidence`` on
BEIR-format sets with qrels.

Each set is loaded into a throw-away service instance (a temporary data directory, the
same ``STRATA_*`` settings as ``strata serve``: model, reranker, weights; tiers from
``metadata.tier``, ages from ``metadata.age_days``) and kept open while both fits run:

1. **Ranking** (``learned`` fusion): for every query with a relevant document, its hybrid
   search's candidates (``POOL_DEPTH`` from each list) with the features the service scores
   them by, and which are relevant. The weights maximise the probability that a softmax over
   a question's candidates picks a relevant one (``service/fitting.py``); a logistic map of
   the weighted sum to "this candidate is relevant" makes it a score. The sets weigh alike
   unless ``set_weights`` say otherwise.
2. **Confidence**, searching with that model: every query is asked through retrieve, and the
   evidence the answer gathered is recorded with the truth: a question is *answered* when a
   relevant document is among the entries returned. When a set holds several namespaces,
   each query is asked once more in the next namespace, where nothing answers it: what a
   question about something memory never recorded looks like. A logistic model of the truth
   over the evidence is fitted, and its threshold chosen where Youden's J is best.

Nothing touches a running service or its data.
"""

from __future__ import annotations

import contextlib
import math
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import numpy as np

from schemas import wire
from service.application.services import Services
from service.auth import OPEN
from service.beir import Query, load_corpus, load_qrels, load_queries, namespace_for, to_event
from service.domain.confidence import FEATURES, Calibration, content_terms
from service.domain.learned import FEATURES as RANKING_FEATURES
from service.domain.learned import LearnedFusion, RankingModel, text_features
from service.domain.models import TIERS, Filters
from service.fitting import listwise, logistic
from service.lifespan import load_reranker, open_services
from service.settings import Settings
from service.verdict import Bin, auc, best_cut, calibration_error, reliability, youden_at

BATCH = 256
PREFIX = "calibrate"
POOL_DEPTH = 100
"""Candidates taken from each list for the ranking fit: what a search of up to 33 results
reads (the service takes at least 3 x limit, and at least STRATA_CANDIDATES, from each)."""
ELSEWHERE_SHARE = 0.2
"""The questions asked elsewhere weigh, together, this share of the set's own in the fit:
enough to teach the model what "never recorded" looks like, not so much that it skews the
probabilities of the questions agents really ask."""
THRESHOLDS = tuple(round(0.01 * n, 2) for n in range(5, 96))
"""The strong_match thresholds considered: 0.05 to 0.95."""

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Observation:
    features: Mapping[str, float]
    confidence: float
    """What the calibration in use said."""
    answered: bool
    """A relevant document is among the entries returned."""
    elsewhere: bool = False
    """Asked in another namespace of the set, where nothing answers it."""


@dataclass(frozen=True)
class Candidates:
    """One question's hybrid-search candidates: each one's ranking features, and whether
    it is relevant."""

    features: list[dict[str, float]]
    relevant: list[bool]


class Workbench:
    """One set loaded into a throw-away instance, open until the ``load`` context ends."""

    def __init__(self, services: Services, dataset: Path, max_queries: int | None) -> None:
        self.services = services
        self.name = dataset.name
        docs = load_corpus(dataset)
        self.qrels = load_qrels(dataset)
        judged = {q for q, found in self.qrels.items() if any(r > 0 for r in found.values())}
        queries = [q for q in load_queries(dataset) if q.id in judged]
        self.queries: list[Query] = queries[:max_queries] if max_queries else queries
        self.source = {
            (namespace_for(PREFIX, d.metadata.get("namespace")), d.id): d.source_id for d in docs
        }
        self.namespaces = sorted({namespace for namespace, _ in self.source})
        self.docs = docs

    @classmethod
    @contextlib.contextmanager
    def load(
        cls,
        settings: Settings,
        dataset: Path,
        *,
        max_queries: int | None = None,
        progress: Progress | None = None,
    ) -> Iterator[Workbench]:
        """``dataset`` written into a throw-away instance with ``settings``."""
        with tempfile.TemporaryDirectory(prefix="strata-calibrate-") as scratch:
            local = settings.replace(
                data_dir=Path(scratch), chroma_url="", database_url="", jobs="off"
            )
            services = open_services(local)
            try:
                load_reranker(local, services.retriever)
                bench = cls(services, dataset, max_queries)
                bench._ingest(progress)
                yield bench
            finally:
                services.close()

    def _ingest(self, progress: Progress | None) -> None:
        now = datetime.now(UTC)
        for start in range(0, len(self.docs), BATCH):
            events = [
                msgspec.convert(to_event(d, "A", PREFIX, now=now), wire.Event)
                for d in self.docs[start : start + BATCH]
            ]
            self.services.events.write(OPEN, events)
            if progress:
                progress("ingest", min(start + BATCH, len(self.docs)), len(self.docs))

    def _relevant(self, query: Query) -> set[str]:
        return {doc for doc, r in self.qrels[query.id].items() if r > 0}

    def candidates(self, progress: Progress | None = None) -> list[Candidates]:
        """Each question's hybrid-search candidates in its own namespace, with the features
        the learned fusion scores (the configured model's, whatever its weights)."""
        retriever = self.services.retriever
        fusion = retriever.fusion
        if not isinstance(fusion, LearnedFusion):
            raise ValueError("the ranking model is fitted for STRATA_FUSION=learned")
        found = []
        for n, query in enumerate(self.queries, start=1):
            namespace = namespace_for(PREFIX, query.namespace)
            filters = Filters(namespace=namespace, tiers=TIERS, now=datetime.now(UTC).timestamp())
            lists, vector = retriever.lists(query.text, filters, "hybrid", POOL_DEPTH)
            if vector is None:
                raise ValueError("the ranking model is fitted with an embedding model")
            pool = fusion.pool(query.text, lists, vector).features
            loaded = retriever.ledger.passages(pool.keys)
            asked = content_terms(query.text)
            relevant = self._relevant(query)
            rows, truth = [], []
            for row, key in enumerate(pool.keys):
                if key not in loaded:
                    continue
                entry, listed = loaded[key][0], pool.of(row)
                rows.append({**listed, **text_features(asked, entry, listed["unembedded"])})
                truth.append(self.source.get((namespace, entry.id)) in relevant)
            found.append(Candidates(rows, truth))
            if progress:
                progress("rank", n, len(self.queries))
        return found

    def rank_with(self, model: RankingModel) -> None:
        """Search with ``model`` from now on (``learned`` fusion)."""
        retriever = self.services.retriever
        if isinstance(retriever.fusion, LearnedFusion):
            retriever.fusion.model = model
        if retriever.cache is not None:
            retriever.cache.invalidate(self.namespaces)

    def observe(self, top_n: int = 5, progress: Progress | None = None) -> list[Observation]:
        """Each question asked through retrieve (and once more in another namespace when the
        set has several), with the evidence its answer gathered."""
        observed = []
        for n, query in enumerate(self.queries, start=1):
            home = namespace_for(PREFIX, query.namespace)
            relevant = self._relevant(query)
            asked = [(home, False)]
            if len(self.namespaces) > 1:
                following = (self.namespaces.index(home) + 1) % len(self.namespaces)
                asked.append((self.namespaces[following], True))
            for namespace, elsewhere in asked:
                request = wire.RetrieveRequest(
                    question=query.text, namespace=namespace, top_n=top_n
                )
                answer = self.services.answers.retrieve(OPEN, request).answer
                returned = {self.source.get((namespace, a.result.entry.id)) for a in answer.entries}
                observed.append(
                    Observation(
                        answer.evidence.features(),
                        answer.confidence,
                        answered=not elsewhere and bool(relevant & returned),
                        elsewhere=elsewhere,
                    )
                )
            if progress:
                progress("ask", n, len(self.queries))
        return observed


def fit_ranking(
    sets: Mapping[str, Sequence[Candidates]], set_weights: Mapping[str, float] | None = None
) -> RankingModel:
    """The ranking model of the sets' candidates: listwise weights over ``FEATURES`` of the
    learned fusion, then the logistic map of their sum to "relevant", every set weighing
    ``set_weights`` (1 when not given) in both."""
    weights = {name: (set_weights or {}).get(name, 1.0) for name in sets}
    groups = [
        [(_matrix(c.features), np.array(c.relevant, dtype=float)) for c in found if c.features]
        for found in sets.values()
    ]
    beta = listwise(groups, list(weights.values()))
    logits, truth, share = [], [], []
    for name, batch in zip(sets, groups, strict=True):
        count = sum(len(y) for _, y in batch) or 1
        for x, y in batch:
            logits.append(x @ beta)
            truth.append(y)
            share.append(np.full(len(y), weights[name] / count))
    x = np.concatenate(logits)[:, None]
    platt = logistic(x, np.concatenate(truth), np.concatenate(share))
    return RankingModel(
        weights={f: round(float(w), 4) for f, w in zip(RANKING_FEATURES, beta, strict=True)},
        scale=round(float(platt[1]), 4),
        bias=round(float(platt[0]), 4),
        source=", ".join(
            f"{name} (weight {w:g})" if w != 1 else name for name, w in weights.items()
        ),
    )


def _matrix(rows: Sequence[Mapping[str, float]]) -> np.ndarray:
    return np.array([[row[f] for f in RANKING_FEATURES] for row in rows], dtype=float)


@dataclass(frozen=True)
class RankingFitness:
    """How a ranking model orders a set's candidates (the pool of ``POOL_DEPTH`` a list)."""

    questions: int
    recall_at_10: float
    hit_at_5: float


def assess_ranking(model: RankingModel, found: Sequence[Candidates]) -> RankingFitness:
    recall, hits = [], []
    for c in found:
        order = sorted(range(len(c.features)), key=lambda i: -model.logit(c.features[i]))
        relevant = sum(c.relevant)
        top = [c.relevant[i] for i in order[:10]]
        recall.append(sum(top) / relevant if relevant else 0.0)
        hits.append(float(any(top[:5])))
    return RankingFitness(len(found), float(np.mean(recall)), float(np.mean(hits)))


def fit(sets: Mapping[str, Sequence[Observation]]) -> Calibration:
    """The logistic model of ``answered`` over the features every observation has, all
    sets pooled; its threshold is the one whose worst Youden's J over the sets (asked where
    they belong) is best, so that one threshold serves every kind of question."""
    observed = [o for found in sets.values() for o in found]
    names = [f for f in FEATURES if all(f in o.features for o in observed)]
    x = np.array([[o.features[f] for f in names] for o in observed], dtype=float)
    y = np.array([o.answered for o in observed], dtype=float)
    home = sum(1 for o in observed if not o.elsewhere)
    away = len(observed) - home
    away_weight = ELSEWHERE_SHARE * home / away if away else 0.0
    weights = np.array([away_weight if o.elsewhere else 1.0 for o in observed])
    coefficients = logistic(x, y, weights)
    fitted = Calibration(
        bias=round(float(coefficients[0]), 4),
        weights={f: round(float(w), 4) for f, w in zip(names, coefficients[1:], strict=True)},
        threshold=0.5,
        source=", ".join(sets),
    )
    return replace(fitted, threshold=_threshold(fitted, sets))


def _threshold(calibration: Calibration, sets: Mapping[str, Sequence[Observation]]) -> float:
    def worst_j(threshold: float) -> float:
        found = []
        for observed in sets.values():
            own = [o for o in observed if not o.elsewhere]
            called = [calibration.probability(o.features) >= threshold for o in own]
            j = youden_at(called, [o.answered for o in own])
            found.append(-1.0 if math.isnan(j) else j)
        return min(found, default=-1.0)

    # Among equals, the stricter threshold.
    return max(THRESHOLDS, key=lambda t: (round(worst_j(t), 9), t))


@dataclass(frozen=True)
class Fitness:
    """How a calibration does on observations."""

    questions: int
    answered: int
    auc: float
    j: float
    """Youden's J of ``confidence >= threshold``."""
    best_j: float
    best_threshold: float
    calibration_error: float
    bins: list[Bin]
    elsewhere: int
    elsewhere_confidence: float
    """Mean confidence of the questions asked where nothing answers them."""
    elsewhere_strong: float
    """Share of those called a strong match."""


def assess(calibration: Calibration, observed: Sequence[Observation]) -> Fitness:
    own = [o for o in observed if not o.elsewhere]
    away = [calibration.probability(o.features) for o in observed if o.elsewhere]
    confidence = [calibration.probability(o.features) for o in own]
    truth = [o.answered for o in own]
    cut = best_cut(confidence, truth)
    bins = reliability(confidence, truth)
    return Fitness(
        questions=len(own),
        answered=sum(truth),
        auc=auc(confidence, truth),
        j=youden_at([c >= calibration.threshold for c in confidence], truth),
        best_j=float("nan") if cut is None else cut.j,
        best_threshold=float("nan") if cut is None else cut.threshold,
        calibration_error=calibration_error(bins),
        bins=bins,
        elsewhere=len(away),
        elsewhere_confidence=float(np.mean(away)) if away else float("nan"),
        elsewhere_strong=float(np.mean([c >= calibration.threshold for c in away]))
        if away
        else float("nan"),
    )


def report(calibration: Calibration, fitness: Mapping[str, Fitness]) -> str:
    """The model, then per set its AUC, J and reliability table."""
    weights = ", ".join(f"{name} {w:+.3f}" for name, w in calibration.weights.items())
    lines = [f"confidence = logistic({calibration.bias:+.3f}, {weights})"]
    for name, f in fitness.items():
        lines += [
            "",
            f"## {name}: {f.questions} questions, {f.answered} answered among those returned",
            f"AUC {f.auc:.3f}; J {f.j:.3f} at threshold {calibration.threshold:.2f} "
            f"(best J {f.best_j:.3f} at {f.best_threshold:.2f}); calibration error "
            f"{f.calibration_error:.3f}",
        ]
        if f.elsewhere:
            lines.append(
                f"asked in another namespace ({f.elsewhere}): mean confidence "
                f"{f.elsewhere_confidence:.3f}, strong match {f.elsewhere_strong:.1%}"
            )
        lines += ["", "| confidence | questions | mean | answered |", "|---|---:|---:|---:|"]
        lines += [
            f"| {b.low:.2f} to {b.high:.2f} | {b.count} | {b.mean_confidence:.3f} "
            f"| {b.observed:.3f} |"
            for b in f.bins
        ]
    lines += ["", f"recommended: STRATA_STRONG_MATCH_THRESHOLD={calibration.threshold:.2f}"]
    return "\n".join(lines)


def ranking_report(model: RankingModel, fitness: Mapping[str, RankingFitness]) -> str:
    """The ranking model, then how it orders each set's candidates."""
    weights = ", ".join(f"{name} {w:+.3f}" for name, w in model.weights.items())
    lines = [
        f"ranking = logistic({model.scale:+.3f} x ({weights}) {model.bias:+.3f})",
        "",
        f"| set | questions | R@10 | Hit@5 (candidates: {POOL_DEPTH} from each list) |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {name} | {f.questions} | {f.recall_at_10:.3f} | {f.hit_at_5:.3f} |"
        for name, f in fitness.items()
    ]
    return "\n".join(lines)
