"""The floor check: another BEIR set (``--foreign``) is loaded into the same service under
a namespace prefix of its own, and this set's questions are asked in its namespaces, where
nothing answers them. How often does the service then return nothing, or say its answer is
weak?"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.quality.metrics import mean
from bench.quality.runs import ModeRun, Session, ingest, run_queries, run_retrieve
from service.evaluation.beir import Doc, Query, load_corpus

FLOOR_MODE = "default"
"""The searches of the floor check: the service's defaults (limit aside)."""


@dataclass(frozen=True)
class Foreign:
    """A set loaded only to be asked what it cannot answer."""

    name: str
    prefix: str
    """Its namespace prefix: this run's prefix plus ``-foreign<n>``."""
    docs: list[Doc]
    namespaces: list[str]
    """Its corpus's namespaces (unprefixed), sorted."""


def foreign_prefix(prefix: str, n: int) -> str:
    """The namespace prefix of the ``n``-th foreign set (from 1)."""
    return f"{prefix}-foreign{n}"


def corpus_namespaces(docs: Sequence[Doc]) -> list[str]:
    """The namespaces of a corpus, sorted (``default`` for a row without one)."""
    return sorted({str(d.metadata.get("namespace") or "default") for d in docs})


def load_foreign(dataset: Path, prefix: str, n: int) -> Foreign:
    docs = load_corpus(dataset)
    name = dataset.resolve().name
    return Foreign(name, foreign_prefix(prefix, n), docs, corpus_namespaces(docs))


def elsewhere(queries: Sequence[Query], namespaces: Sequence[str]) -> list[Query]:
    """The queries moved to the foreign namespaces: question i to ``namespaces[i % n]``."""
    if not namespaces:
        raise ValueError("a foreign set needs at least one namespace")
    return [
        dataclasses.replace(q, namespace=namespaces[i % len(namespaces)])
        for i, q in enumerate(queries)
    ]


def share(flags: Sequence[bool]) -> float:
    """The share of true flags; NaN for none."""
    return mean([1.0 if f else 0.0 for f in flags])


def score_floor(search: ModeRun, retrieve: ModeRun | None) -> dict[str, Any]:
    """What the unanswerable questions got: searches with no result, results per search,
    ``dropped`` per search (None when no response carried it), and retrieves with
    ``strong_match`` false or no entries."""
    return {
        "questions": len(search.returned),
        "search_empty": share([n == 0 for n in search.returned]),
        "search_results_mean": mean([float(n) for n in search.returned]),
        "search_dropped_mean": mean([float(n) for n in search.dropped]) if search.dropped else None,
        "search_dropped_reported": len(search.dropped),
        "retrieve_weak": share([not s for s in retrieve.strong]) if retrieve else None,
        "retrieve_empty": share([n == 0 for n in retrieve.returned]) if retrieve else None,
        "retrieve_entries_mean": mean([float(n) for n in retrieve.returned]) if retrieve else None,
    }


def floor_check(
    session: Session,
    foreign: Foreign,
    queries: Sequence[Query],
    *,
    tier: str,
    batch: int,
    load: bool,
) -> dict[str, Any]:
    """Load ``foreign`` (unless not ``load``), then ask ``queries`` in its namespaces: the
    searches in one pass, the retrieves in another, each in its own ``session`` (a freshly
    started service when the run starts them)."""
    if load:
        with session() as c:
            ingest(c, foreign.docs, tier, foreign.prefix, batch, f"{foreign.name} (foreign)")
    asked = elsewhere(queries, foreign.namespaces)
    with session() as c:
        search = run_queries(c, asked, FLOOR_MODE, foreign.prefix, {})
    with session() as c:
        retrieve = run_retrieve(c, asked, foreign.prefix, {})
    print(f"  floor check in {foreign.name} done", file=sys.stderr)
    return {
        "dataset": foreign.name,
        "prefix": foreign.prefix,
        "namespaces": foreign.namespaces,
        **score_floor(search, retrieve),
    }
