"""Retrieval-quality benchmark for the strata REST service on a BEIR-format dataset.

Usage::

    python -m bench.quality DATASET_DIR [--url http://127.0.0.1:8080] [--api-key KEY]
        [--tier A] [--modes default,bm25,vector,hybrid] [--max-queries N] [--batch 256]
        [--no-ingest] [--namespace-prefix bench] [--[no-]verdict] [--json OUT]
        [--plot OUT.png] [--serve]

DATASET_DIR holds ``corpus.jsonl`` (``_id``, ``title``, ``text``, optional ``metadata``),
``queries.jsonl`` (``_id``, ``text``, optional ``metadata``) and ``qrels.tsv`` (header
``query-id<TAB>corpus-id<TAB>score``; a score above 0 marks a relevant document).

Steps:

1. Unless ``--no-ingest``, every corpus row is sent to ``POST /v1/events`` in batches of
   ``--batch``. Ids are sanitized to ``[A-Za-z0-9_.:-]{1,128}``; namespaces come from
   ``metadata.namespace`` (else ``default``) and are prefixed with ``--namespace-prefix``
   plus ``-`` so benchmark data stays apart from anything else on the server. A row's tier
   is its ``metadata.tier``, else ``--tier``; a row with ``metadata.age_days`` is dated that
   many days before the ingest starts (else by ``metadata.timestamp``).
2. Each query that has at least one relevant document in the qrels (the first
   ``--max-queries`` of them, in file order) is sent to ``POST /v1/search`` once per mode,
   with ``limit`` 100, in the namespace given by its own ``metadata.namespace``. Mode
   ``default`` sends nothing else (the service's defaults: mode auto, every tier); the
   others set ``mode`` (and ``rerank``).
3. Per mode the script prints nDCG@10 (linear gain, as pytrec_eval), Recall@10, Recall@100,
   MRR@10, Hit@5, client-side p50/p95 latency and the mean server ``took_ms``, as a
   markdown table.
4. The verdict (``--verdict``; by default when the service answers ``POST /v1/retrieve``):
   each query is asked once more through retrieve, ``top_n`` 5. Its confidence
   (``answer_confidence``, else ``best_relevance``) is scored against the truth "a relevant
   document is among the entries": AUC, the best Youden's J and its threshold, J and the
   strong_match rate at the service's own threshold, and (in the JSON) a reliability table
   over confidence deciles.

``--serve`` starts the service itself (``python -m service serve``) on a free loopback port
with a throw-away data directory, waits for ``GET /health`` and stops it at the end; ``--url``
is then ignored. ``--json OUT`` also writes the figures to a JSON file.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench.common import (
    REQUEST_TIMEOUT_S,
    auth_headers,
    machine_info,
    percentile,
    pyplot,
    search_fields,
    write_json,
)
from bench.server import serve
from service.beir import (
    Doc,
    Qrels,
    Query,
    load_corpus,
    load_qrels,
    load_queries,
    namespace_for,
    to_event,
)
from service.verdict import auc, best_cut, calibration_error, rate, reliability, youden_at

SEARCH_LIMIT = 100
RETRIEVE_TOP_N = 5
DEFAULT_MODES = "default,bm25,vector,hybrid"


@dataclass
class ModeRun:
    """Raw outcome of one mode: ranked corpus ids per query and timings."""

    rankings: dict[str, list[str]] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    took_ms: list[float] = field(default_factory=list)
    degraded: set[str] = field(default_factory=set)


@dataclass
class VerdictRun:
    """Per question: the answer's confidence, the service's verdict and the truth."""

    confidence: list[float] = field(default_factory=list)
    strong: list[bool] = field(default_factory=list)
    answered: list[bool] = field(default_factory=list)
    """A relevant document is among the entries returned."""
    thresholds: set[float] = field(default_factory=set)
    fields: Counter[str] = field(default_factory=Counter)
    """Which response field gave the confidence, and how often."""
    latencies_ms: list[float] = field(default_factory=list)


# --------------------------------------------------------------------------- metrics


def ndcg_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    """nDCG@k with linear gain, ``sum rel_i / log2(i + 1)`` (1-based i), as pytrec_eval."""
    dcg = sum(max(rels.get(doc, 0), 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    """Fraction of the relevant documents (score > 0) found in the top k."""
    relevant = {doc for doc, r in rels.items() if r > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def mrr_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    """Reciprocal rank of the first relevant document in the top k, else 0."""
    for i, doc in enumerate(ranked[:k]):
        if rels.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def hit_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    """1 when a relevant document is in the top k, else 0."""
    return 1.0 if any(rels.get(doc, 0) > 0 for doc in ranked[:k]) else 0.0


def mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else float("nan")


# --------------------------------------------------------------------------- dataset


def _check(resp: httpx.Response, what: str) -> None:
    if not resp.is_success:
        print(f"{what} failed: HTTP {resp.status_code}\n{resp.text}", file=sys.stderr)
        sys.exit(1)


def ingest(client: httpx.Client, docs: Sequence[Doc], tier: str, prefix: str, batch: int) -> float:
    """Send the corpus; returns the wall-clock seconds taken."""
    embedded = indexed = 0
    # One "now" for every row: rows aged alike stay dated alike.
    now = datetime.now(UTC)
    start = time.perf_counter()
    for i in range(0, len(docs), batch):
        events = [to_event(d, tier, prefix, now=now) for d in docs[i : i + batch]]
        resp = client.post("/v1/events", json={"events": events})
        _check(resp, f"POST /v1/events (batch at {i})")
        body = resp.json()
        embedded += int(body.get("embedded", 0))
        indexed += int(body.get("indexed", 0))
        done = min(i + batch, len(docs))
        print(f"  ingested {done}/{len(docs)}", end="\r", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    print(file=sys.stderr)
    docs_per_s = len(docs) / seconds if seconds > 0 else float("inf")
    print(
        f"ingest: {len(docs)} docs in {seconds:.1f} s ({docs_per_s:.1f} docs/s), "
        f"embedded {embedded}, indexed {indexed}"
    )
    return seconds


def run_queries(
    client: httpx.Client,
    queries: Sequence[Query],
    mode: str,
    prefix: str,
    id_map: Mapping[str, str],
) -> ModeRun:
    """Search every query in one mode; result ids are mapped back to corpus ids."""
    run = ModeRun()
    for q in queries:
        payload = {
            "query": q.text,
            "namespace": namespace_for(prefix, q.namespace),
            **search_fields(mode, SEARCH_LIMIT),
        }
        start = time.perf_counter()
        resp = client.post("/v1/search", json=payload)
        run.latencies_ms.append((time.perf_counter() - start) * 1000.0)
        _check(resp, f"POST /v1/search ({mode}, query {q.id})")
        body = resp.json()
        if body.get("took_ms") is not None:
            run.took_ms.append(float(body["took_ms"]))
        run.degraded.update(str(reason) for reason in body.get("degraded") or [])
        ranked: list[str] = []
        for hit in body.get("results") or []:
            corpus_id = id_map.get(str(hit["id"]), str(hit["id"]))
            if corpus_id not in ranked:
                ranked.append(corpus_id)
        run.rankings[q.id] = ranked
    return run


def score_run(run: ModeRun, qrels: Qrels) -> dict[str, float]:
    """Mean metrics over the run's queries, latency percentiles and the query count."""
    per_query = [(run.rankings[qid], qrels[qid]) for qid in run.rankings]
    return {
        "ndcg@10": mean([ndcg_at_k(r, rel, 10) for r, rel in per_query]),
        "recall@10": mean([recall_at_k(r, rel, 10) for r, rel in per_query]),
        "recall@100": mean([recall_at_k(r, rel, 100) for r, rel in per_query]),
        "mrr@10": mean([mrr_at_k(r, rel, 10) for r, rel in per_query]),
        "hit@5": mean([hit_at_k(r, rel, 5) for r, rel in per_query]),
        "p50_ms": percentile(run.latencies_ms, 50),
        "p95_ms": percentile(run.latencies_ms, 95),
        "server_took_ms_mean": mean(run.took_ms),
        "queries": len(per_query),
    }


def run_verdict(
    client: httpx.Client,
    queries: Sequence[Query],
    prefix: str,
    id_map: Mapping[str, str],
    qrels: Qrels,
    *,
    required: bool,
) -> VerdictRun | None:
    """Ask every query through ``POST /v1/retrieve``; None when the service does not answer
    it and ``required`` is false."""
    run = VerdictRun()
    for q in queries:
        payload = {
            "question": q.text,
            "namespace": namespace_for(prefix, q.namespace),
            "top_n": RETRIEVE_TOP_N,
        }
        start = time.perf_counter()
        resp = client.post("/v1/retrieve", json=payload)
        run.latencies_ms.append((time.perf_counter() - start) * 1000.0)
        if not run.confidence and resp.status_code in (404, 405) and not required:
            print(f"no verdict: POST /v1/retrieve answered HTTP {resp.status_code}")
            return None
        _check(resp, f"POST /v1/retrieve (query {q.id})")
        body = resp.json()
        key = "answer_confidence" if body.get("answer_confidence") is not None else "best_relevance"
        run.fields[key] += 1
        run.confidence.append(float(body[key]))
        run.strong.append(bool(body["strong_match"]))
        run.thresholds.add(float(body["threshold"]))
        returned = {id_map.get(str(e["id"]), str(e["id"])) for e in body.get("entries") or []}
        run.answered.append(any(qrels[q.id].get(doc, 0) > 0 for doc in returned))
    return run


def score_verdict(run: VerdictRun) -> dict[str, Any]:
    """How well the confidence tells answered questions from the others, and how the
    service's own strong_match does."""
    cut = best_cut(run.confidence, run.answered)
    bins = reliability(run.confidence, run.answered)
    return {
        "questions": len(run.answered),
        "answered": sum(run.answered),
        "answered_rate": rate(run.answered),
        "confidence_field": dict(run.fields),
        "auc": auc(run.confidence, run.answered),
        "best_j": cut.j if cut else float("nan"),
        "best_threshold": cut.threshold if cut else float("nan"),
        "service_thresholds": sorted(run.thresholds),
        "service_j": youden_at(run.strong, run.answered),
        "strong_match_rate": rate(run.strong),
        "calibration_error": calibration_error(bins),
        "reliability": [asdict(b) for b in bins],
        "p50_ms": percentile(run.latencies_ms, 50),
        "p95_ms": percentile(run.latencies_ms, 95),
    }


# --------------------------------------------------------------------------- report


def print_report(
    name: str, n_docs: int, n_queries: int, results: Mapping[str, dict[str, float]]
) -> None:
    info = machine_info()
    print(
        f"\n**{name}**: {n_docs} docs, {n_queries} queries "
        f"({info['platform']}, {info['cpu_count']} CPUs)\n"
    )
    print("| mode | nDCG@10 | R@10 | R@100 | MRR@10 | Hit@5 | p50 ms | p95 ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for mode, m in results.items():
        print(
            f"| {mode} | {m['ndcg@10']:.3f} | {m['recall@10']:.3f} | {m['recall@100']:.3f} "
            f"| {m['mrr@10']:.3f} | {m['hit@5']:.3f} | {m['p50_ms']:.1f} | {m['p95_ms']:.1f} |"
        )
    took = ", ".join(f"{mode} {m['server_took_ms_mean']:.1f}" for mode, m in results.items())
    print(f"\nmean server took_ms: {took}")


def print_verdict(v: Mapping[str, Any]) -> None:
    fields = ", ".join(sorted(v["confidence_field"])) or "none"
    thresholds = ", ".join(f"{t:.2f}" for t in v["service_thresholds"]) or "?"
    print(
        f"\nverdict (POST /v1/retrieve, top_n {RETRIEVE_TOP_N}, confidence: {fields}): "
        f"{v['questions']} questions, {v['answered']} with a relevant document among the "
        f"entries ({v['answered_rate']:.3f})\n"
    )
    print(
        "| AUC | best J | at confidence ≥ | J at service threshold | service threshold "
        "| strong_match rate | ECE | p50 ms | p95 ms |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {v['auc']:.3f} | {v['best_j']:.3f} | {v['best_threshold']:.3f} "
        f"| {v['service_j']:.3f} | {thresholds} | {v['strong_match_rate']:.3f} "
        f"| {v['calibration_error']:.3f} | {v['p50_ms']:.1f} | {v['p95_ms']:.1f} |"
    )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Retrieval-quality benchmark for strata.")
    p.add_argument("dataset", type=Path, help="BEIR-format dataset directory")
    p.add_argument("--url", default="http://127.0.0.1:8080", help="service base URL")
    p.add_argument("--api-key", default=None, help="sent as Authorization: Bearer KEY")
    p.add_argument("--tier", default="A", help="tier of rows whose metadata gives none")
    p.add_argument(
        "--modes",
        default=DEFAULT_MODES,
        help="comma-separated: default (the service's own defaults), bm25, vector, hybrid, "
        "hybrid+rerank",
    )
    p.add_argument("--max-queries", type=int, default=None, help="first N judged queries")
    p.add_argument("--batch", type=int, default=256, help="events per POST /v1/events")
    p.add_argument("--no-ingest", action="store_true", help="search data already ingested")
    p.add_argument("--namespace-prefix", default="bench", help="prefix of every namespace")
    p.add_argument(
        "--verdict",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="score /v1/retrieve's confidence (default: when the service answers it)",
    )
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="write figures here")
    p.add_argument("--serve", action="store_true", help="start the service as a subprocess")
    p.add_argument(
        "--plot", type=Path, default=None, metavar="OUT.png", help="plot quality and latency"
    )
    args = p.parse_args(argv)
    if args.batch < 1:
        p.error("--batch must be at least 1")
    return args


def benchmark(args: argparse.Namespace, url: str) -> dict[str, Any]:
    docs = load_corpus(args.dataset)
    qrels = {q: r for q, r in load_qrels(args.dataset).items() if any(v > 0 for v in r.values())}
    queries = [q for q in load_queries(args.dataset) if q.id in qrels]
    if args.max_queries is not None:
        queries = queries[: args.max_queries]
    id_map = {d.id: d.source_id for d in docs}
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    headers = auth_headers(args.api_key)

    ingest_s: float | None = None
    with httpx.Client(base_url=url, headers=headers, timeout=REQUEST_TIMEOUT_S) as client:
        if not args.no_ingest:
            ingest_s = ingest(client, docs, args.tier, args.namespace_prefix, args.batch)
        runs = {m: run_queries(client, queries, m, args.namespace_prefix, id_map) for m in modes}
        verdict_run = None
        if args.verdict is not False:
            verdict_run = run_verdict(
                client, queries, args.namespace_prefix, id_map, qrels, required=bool(args.verdict)
            )

    results = {mode: score_run(run, qrels) for mode, run in runs.items()}
    name = args.dataset.resolve().name
    print_report(name, len(docs), len(queries), results)
    degraded = {mode: sorted(run.degraded) for mode, run in runs.items() if run.degraded}
    for mode, reasons in degraded.items():
        print(f"degraded ({mode}): {', '.join(reasons)}")
    verdict = score_verdict(verdict_run) if verdict_run is not None else None
    if verdict is not None:
        print_verdict(verdict)
    tiers = Counter(to_event(d, args.tier, args.namespace_prefix)["tier"] for d in docs)
    return {
        "dataset": name,
        "docs": len(docs),
        "queries": len(queries),
        "machine": machine_info(),
        "tier": args.tier,
        "tiers": dict(sorted(tiers.items())),
        "ingest_seconds": ingest_s,
        "ingest_docs_per_s": len(docs) / ingest_s if ingest_s else None,
        "modes": results,
        "degraded": degraded,
        "verdict": verdict,
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(serve(args.api_key)) if args.serve else args.url.rstrip("/")
        try:
            report = benchmark(args, url)
        except httpx.HTTPError as exc:
            print(f"request to {url} failed: {exc!r}", file=sys.stderr)
            return 1
    if args.json is not None:
        write_json(args.json, report)
    if args.plot is not None:
        plot(report, args.plot)
    return 0


def plot(report: Mapping[str, Any], out: Path) -> None:
    """Quality (nDCG@10, R@10, R@100, MRR@10, Hit@5) and p50/p95 latency per mode, side by side."""
    plt = pyplot()
    if plt is None:
        return
    modes = list(report["modes"])
    metrics = ["ndcg@10", "recall@10", "recall@100", "mrr@10", "hit@5"]
    fig, (quality, latency) = plt.subplots(1, 2, figsize=(12, 4.5))
    width = 0.8 / len(metrics)
    for n, metric in enumerate(metrics):
        xs = [i + n * width for i in range(len(modes))]
        quality.bar(xs, [report["modes"][m][metric] for m in modes], width, label=metric)
    quality.set_xticks([i + 0.4 - width / 2 for i in range(len(modes))], modes)
    quality.set_ylim(0, 1)
    quality.set_title(f"{report['dataset']}: quality ({report['queries']} queries)")
    quality.legend(fontsize=8)
    for n, key in enumerate(["p50_ms", "p95_ms"]):
        xs = [i + n * 0.4 for i in range(len(modes))]
        latency.bar(xs, [report["modes"][m][key] or 0 for m in modes], 0.4, label=key)
    latency.set_xticks([i + 0.2 for i in range(len(modes))], modes)
    latency.set_ylabel("ms per search (client side)")
    latency.set_title("latency")
    latency.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
