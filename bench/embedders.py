"""Embedding backends side by side: torch, ONNX Runtime and ONNX Runtime with int8 weights.

Usage::

    python -m bench.embedders [--backends torch,onnx,onnx-int8] [--texts 1000]
        [--queries 200] [--threads 0] [--json OUT]

All three run the bundled all-MiniLM-L6-v2. For each backend: ingest throughput (texts/s,
batches of 64) on short events (15-40 words) and on longer ones (40-120 words), both drawn
from ``bench.load``'s generated workload; the latency of embedding one query (5-12 words)
at p50/p95; and agreement with torch: the mean and lowest cosine between a text's vectors,
and overlap@10 of brute-force top-10 searches of the queries over the short texts.
Retrieval quality on the dev sets is ``python -m bench.quality`` with
``STRATA_EMBEDDING_BACKEND``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import machine_info, percentile
from bench.load.workload import Workload
from service.stores.embedder import (
    BACKENDS,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    default_model_path,
)


def texts(count: int, seed: int) -> tuple[list[str], list[str], list[str]]:
    """Short events, longer ones and queries, from the load benchmark's tier A/C text."""
    rng = random.Random(seed)
    workload = Workload(count * 20, seed, 4, 30, "emb", time.time())
    paragraphs = [e["text"] for e in workload.events() if e["tier"] in ("A", "C")][: count * 2]
    words = [p.split() for p in paragraphs]
    short = [" ".join(w[: rng.randint(15, 40)]) for w in words[:count]]
    longer = [" ".join(w[:120]) for w in words[count:] if len(w) >= 40][: count // 2]
    queries = [" ".join(rng.sample(w, min(len(w), rng.randint(5, 12)))) for w in words]
    return short, longer, queries


def build(backend: str, cache: Path, threads: int) -> Any:
    if backend == "torch":
        return SentenceTransformerEmbedder(threads=threads)
    return OnnxEmbedder(
        Path(default_model_path()), cache, quantized=backend == "onnx-int8", threads=threads
    )


def measure(embedder: Any, short: list[str], longer: list[str], queries: list[str]) -> dict:
    embedder.embed(short[:64])  # warm up
    started = time.perf_counter()
    short_vectors = np.asarray(embedder.embed(short))
    short_s = time.perf_counter() - started
    started = time.perf_counter()
    embedder.embed(longer)
    long_s = time.perf_counter() - started
    latencies, query_vectors = [], []
    for query in queries:
        started = time.perf_counter()
        query_vectors.append(embedder.embed([query])[0])
        latencies.append((time.perf_counter() - started) * 1000)
    return {
        "short_per_s": len(short) / short_s,
        "long_per_s": len(longer) / long_s,
        "query_p50_ms": percentile(latencies, 50),
        "query_p95_ms": percentile(latencies, 95),
        "short_vectors": short_vectors,
        "query_vectors": np.asarray(query_vectors),
    }


def agreement(run: dict, reference: dict, k: int = 10) -> dict:
    cos = np.sum(run["short_vectors"] * reference["short_vectors"], axis=1)
    mine = np.argsort(-(run["query_vectors"] @ run["short_vectors"].T), axis=1)[:, :k]
    theirs = np.argsort(-(reference["query_vectors"] @ reference["short_vectors"].T), axis=1)
    overlap = [len(set(a) & set(b[:k])) / k for a, b in zip(mine, theirs, strict=True)]
    return {
        "cosine_mean": float(cos.mean()),
        "cosine_min": float(cos.min()),
        f"overlap@{k}": float(np.mean(overlap)),
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--backends", default=",".join(BACKENDS))
    p.add_argument("--texts", type=int, default=1000, help="short texts (half as many long)")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--threads", type=int, default=0, help="model threads; 0: one per core")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--json", type=Path, default=None, metavar="OUT")
    args = p.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if bad := [b for b in backends if b not in BACKENDS]:
        p.error(f"--backends: unknown {', '.join(bad)}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    short, longer, queries = texts(args.texts, args.seed)
    queries = queries[: args.queries]
    runs: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as cache:
        for backend in ["torch", *[b for b in backends if b != "torch"]]:
            print(f"measuring {backend}", file=sys.stderr)
            embedder = build(backend, Path(cache), args.threads)
            runs[backend] = measure(embedder, short, longer, queries)
    info = machine_info()
    lines = [
        "## Embedding backends (bench/embedders.py)",
        "",
        f"all-MiniLM-L6-v2; {len(short)} short texts (15-40 words), {len(longer)} longer "
        f"(40-120 words), {len(queries)} queries (5-12 words); batches of 64; model threads "
        f"{args.threads or 'one per core'}; {info['platform']}, {info['cpu_count']} CPUs. "
        "Agreement is with torch's vectors of the same texts.",
        "",
        "| backend | short texts/s | long texts/s | query p50 ms | query p95 ms "
        "| cosine mean | cosine min | overlap@10 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    figures = {}
    for backend in [b for b in runs if b in backends]:
        run = runs[backend]
        agree = agreement(run, runs["torch"])
        figures[backend] = {k: v for k, v in run.items() if not k.endswith("_vectors")} | agree
        lines.append(
            f"| {backend} | {run['short_per_s']:.0f} | {run['long_per_s']:.0f} "
            f"| {run['query_p50_ms']:.1f} | {run['query_p95_ms']:.1f} "
            f"| {agree['cosine_mean']:.4f} | {agree['cosine_min']:.4f} "
            f"| {agree['overlap@10']:.3f} |"
        )
    print("\n".join(lines))
    if args.json is not None:
        args.json.write_text(json.dumps({"machine": info, "runs": figures}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
