"""The sets a quality run asks: its dataset (corpus, judged queries, qrels) and the
foreign sets of its floor check."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.quality.floor import Foreign, load_foreign
from service.evaluation.beir import Doc, Qrels, Query, load_corpus, load_qrels, load_queries


@dataclass(frozen=True)
class Dataset:
    name: str
    docs: list[Doc]
    qrels: Qrels
    queries: list[Query]
    """The judged queries (one relevant document at least), in file order."""
    id_map: dict[str, str]
    """Service id → corpus id."""
    foreign: list[Foreign]


def load_dataset(
    path: Path, prefix: str, max_queries: int | None = None, foreign: Sequence[Path] = ()
) -> Dataset:
    """The set at ``path`` (its first ``max_queries`` judged queries, all when None), and
    the ``foreign`` sets, the n-th under the prefix ``<prefix>-foreign<n>``."""
    docs = load_corpus(path)
    qrels = {q: r for q, r in load_qrels(path).items() if any(v > 0 for v in r.values())}
    queries = [q for q in load_queries(path) if q.id in qrels]
    if max_queries is not None:
        queries = queries[:max_queries]
    id_map = {d.id: d.source_id for d in docs}
    others = [load_foreign(other, prefix, n) for n, other in enumerate(foreign, 1)]
    return Dataset(path.resolve().name, docs, qrels, queries, id_map, others)
