"""``strata calibrate``: fit ``answer_confidence`` on BEIR-format sets with qrels.

Each set is loaded into a throw-away service instance (a temporary data directory, the
same ``STRATA_*`` settings as ``strata serve``: model, reranker, weights; tiers from
``metadata.tier``, ages from ``metadata.age_days``), every query with a relevant document
is asked through retrieve, and the evidence the answer gathered is recorded with the truth:
a question is *answered* when a relevant document is among the entries returned. When a set
holds several namespaces, each query is asked once more in the next namespace, where
nothing answers it: what a question about something memory never recorded looks like.

A logistic model of the truth over the evidence is then fitted (Newton's method, a touch of
L2), and its threshold chosen where Youden's J is best. Nothing touches a running service
or its data.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import numpy as np
import numpy.typing as npt

from schemas import wire
from service.auth import OPEN
from service.beir import load_corpus, load_qrels, load_queries, namespace_for, to_event
from service.domain.confidence import FEATURES, Calibration
from service.lifespan import load_reranker, open_services
from service.settings import Settings
from service.verdict import Bin, auc, best_cut, calibration_error, reliability, youden_at

BATCH = 256
PREFIX = "calibrate"
ELSEWHERE_SHARE = 0.2
"""The questions asked elsewhere weigh, together, this share of the set's own in the fit:
enough to teach the model what "never recorded" looks like, not so much that it skews the
probabilities of the questions agents really ask."""
L2 = 1e-5
THRESHOLDS = tuple(round(0.01 * n, 2) for n in range(5, 96))
"""The strong_match thresholds considered: 0.05 to 0.95."""
NEWTON_STEPS = 100

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


def observe(
    settings: Settings,
    dataset: Path,
    *,
    top_n: int = 5,
    max_queries: int | None = None,
    progress: Progress | None = None,
) -> list[Observation]:
    """Load ``dataset`` into a throw-away instance and ask each of its queries (and each
    once more in another namespace when the set has several)."""
    docs = load_corpus(dataset)
    qrels = load_qrels(dataset)
    queries = [q for q in load_queries(dataset) if any(r > 0 for r in qrels.get(q.id, {}).values())]
    queries = queries[:max_queries] if max_queries else queries
    source = {(namespace_for(PREFIX, d.metadata.get("namespace")), d.id): d.source_id for d in docs}
    namespaces = sorted({namespace for namespace, _ in source})
    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory(prefix="strata-calibrate-") as scratch:
        local = settings.replace(data_dir=Path(scratch), chroma_url="", database_url="", jobs="off")
        services = open_services(local)
        try:
            load_reranker(local, services.retriever)
            for start in range(0, len(docs), BATCH):
                events = [
                    msgspec.convert(to_event(d, "A", PREFIX, now=now), wire.Event)
                    for d in docs[start : start + BATCH]
                ]
                services.events.write(OPEN, events)
                if progress:
                    progress("ingest", min(start + BATCH, len(docs)), len(docs))
            observed = []
            for n, query in enumerate(queries, start=1):
                home = namespace_for(PREFIX, query.namespace)
                relevant = {doc for doc, r in qrels[query.id].items() if r > 0}
                asked = [(home, False)]
                if len(namespaces) > 1:
                    asked.append((namespaces[(namespaces.index(home) + 1) % len(namespaces)], True))
                for namespace, elsewhere in asked:
                    request = wire.RetrieveRequest(
                        question=query.text, namespace=namespace, top_n=top_n
                    )
                    answer = services.answers.retrieve(OPEN, request).answer
                    returned = {source.get((namespace, a.result.entry.id)) for a in answer.entries}
                    observed.append(
                        Observation(
                            answer.evidence.features(),
                            answer.confidence,
                            answered=not elsewhere and bool(relevant & returned),
                            elsewhere=elsewhere,
                        )
                    )
                if progress:
                    progress("ask", n, len(queries))
        finally:
            services.close()
    return observed


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
    coefficients = _logistic(x, y, weights)
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


def _logistic(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], weights: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Bias and coefficients maximising the weighted log-likelihood (Newton's method)."""
    design = np.c_[np.ones(len(x)), x]
    penalty = L2 * np.diag(np.r_[0.0, np.ones(x.shape[1])])
    beta = np.zeros(design.shape[1])
    total = weights.sum() or 1.0
    for _ in range(NEWTON_STEPS):
        p = 1 / (1 + np.exp(-np.clip(design @ beta, -40, 40)))
        gradient = design.T @ (weights * (p - y)) / total + penalty @ beta
        hessian = (design.T * (weights * p * (1 - p))) @ design / total + penalty
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-10:
            break
    return beta


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
