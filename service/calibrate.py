"""``strata calibrate``: choose the strong_match threshold on a BEIR-format set with qrels.

The set is loaded into a throw-away service instance (a temporary data directory, the
same ``STRATA_*`` settings as ``strata serve``: model, reranker, weights), every query
with a relevant document is asked through retrieve, and the verdict is compared with the
truth: a question has a near-direct answer when a relevant document is among the entries
returned. Nothing touches a running service or its data.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from schemas import wire
from service.auth import OPEN
from service.beir import load_corpus, load_qrels, load_queries, namespace_for, to_event
from service.lifespan import load_reranker, open_services
from service.settings import Settings

BATCH = 256
PREFIX = "calibrate"
THRESHOLDS = tuple(round(0.05 * n, 2) for n in range(2, 20))
"""0.10, 0.15, ... 0.95."""

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Observation:
    best_relevance: float
    answerable: bool
    """A relevant document is among the entries returned."""


@dataclass(frozen=True)
class Point:
    threshold: float
    strong: int
    precision: float
    """Of the questions called a strong match, the share that had an answer."""
    recall: float
    """Of the questions that had an answer, the share called a strong match."""
    false_alarms: float
    """Of the questions that had no answer, the share called a strong match anyway."""

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0

    @property
    def youden(self) -> float:
        """Youden's J, recall minus the false-alarm rate: 0 for a verdict that ignores the
        question (always or never strong), 1 for a perfect one, whatever the base rate."""
        return self.recall - self.false_alarms


def sweep(observed: Sequence[Observation], thresholds: Sequence[float] = THRESHOLDS) -> list[Point]:
    answerable = sum(1 for o in observed if o.answerable)
    unanswerable = len(observed) - answerable
    points = []
    for threshold in thresholds:
        strong = [o for o in observed if o.best_relevance >= threshold]
        hits = sum(1 for o in strong if o.answerable)
        points.append(
            Point(
                threshold=threshold,
                strong=len(strong),
                precision=hits / len(strong) if strong else 1.0,
                recall=hits / answerable if answerable else 0.0,
                false_alarms=(len(strong) - hits) / unanswerable if unanswerable else 0.0,
            )
        )
    return points


def recommend(points: Sequence[Point]) -> Point:
    """The threshold with the best Youden's J; among equals, the higher (stricter) one.

    J rather than F1: when most questions have an answer among the entries, F1 favours
    calling everything a strong match, which tells an agent nothing."""
    return max(points, key=lambda p: (round(p.youden, 6), p.threshold))


def observe(
    settings: Settings,
    dataset: Path,
    *,
    top_n: int = 5,
    max_queries: int | None = None,
    progress: Progress | None = None,
) -> list[Observation]:
    """Load ``dataset`` into a throw-away instance and ask each of its queries."""
    docs = load_corpus(dataset)
    qrels = load_qrels(dataset)
    queries = [q for q in load_queries(dataset) if any(r > 0 for r in qrels.get(q.id, {}).values())]
    queries = queries[:max_queries] if max_queries else queries
    source = {(namespace_for(PREFIX, d.metadata.get("namespace")), d.id): d.source_id for d in docs}
    with tempfile.TemporaryDirectory(prefix="strata-calibrate-") as scratch:
        local = settings.replace(data_dir=Path(scratch), chroma_url="", database_url="", jobs="off")
        services = open_services(local)
        try:
            load_reranker(local, services.retriever)
            for start in range(0, len(docs), BATCH):
                events = [
                    msgspec.convert(to_event(d, "A", PREFIX), wire.Event)
                    for d in docs[start : start + BATCH]
                ]
                services.events.write(OPEN, events)
                if progress:
                    progress("ingest", min(start + BATCH, len(docs)), len(docs))
            observed = []
            for n, query in enumerate(queries, start=1):
                namespace = namespace_for(PREFIX, query.namespace)
                request = wire.RetrieveRequest(
                    question=query.text, namespace=namespace, top_n=top_n
                )
                answer = services.answers.retrieve(OPEN, request).answer
                relevant = {doc for doc, r in qrels[query.id].items() if r > 0}
                returned = {source.get((namespace, a.result.entry.id)) for a in answer.entries}
                observed.append(Observation(answer.best_relevance, bool(relevant & returned)))
                if progress:
                    progress("ask", n, len(queries))
        finally:
            services.close()
    return observed


def report(points: Sequence[Point], chosen: Point, observed: Sequence[Observation]) -> str:
    answerable = sum(1 for o in observed if o.answerable)
    lines = [
        f"{len(observed)} questions, {answerable} with a relevant entry among those returned",
        "",
        "| threshold | strong | precision | recall | false alarms | F1 | J |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for p in points:
        mark = "  <- recommended" if p is chosen else ""
        lines.append(
            f"| {p.threshold:.2f} | {p.strong} | {p.precision:.3f} | {p.recall:.3f} "
            f"| {p.false_alarms:.3f} | {p.f1:.3f} | {p.youden:.3f} |{mark}"
        )
    lines += ["", f"recommended: STRATA_STRONG_MATCH_THRESHOLD={chosen.threshold:.2f}"]
    return "\n".join(lines)
