"""The passes of a quality run over HTTP: ingest, each mode's queries one at a time (its
rankings), the same queries from concurrent clients (its cost), and retrieve's verdict."""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from bench import cost
from bench.common import search_fields
from service.evaluation.beir import Doc, Qrels, Query, namespace_for, to_event

SEARCH_LIMIT = 100
RETRIEVE_TOP_N = 5
WARMUP_SEARCHES = 3
"""Searches sent before a cost pass, to a namespace holding nothing, outside the figures."""


@dataclass
class ModeRun:
    """Raw outcome of one mode: ranked corpus ids per query and timings."""

    rankings: dict[str, list[str]] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    took_ms: list[float] = field(default_factory=list)
    degraded: set[str] = field(default_factory=set)


@dataclass
class CostRun:
    """One mode's queries sent by concurrent clients, with the server's counters around."""

    concurrency: int
    searches: int = 0
    errors: int = 0
    first_error: str | None = None
    wall_s: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    before: cost.Reading | None = None
    after: cost.Reading | None = None


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


def check(resp: httpx.Response, what: str) -> None:
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
        check(resp, f"POST /v1/events (batch at {i})")
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


def search_payload(q: Query, mode: str, prefix: str) -> dict[str, Any]:
    return {
        "query": q.text,
        "namespace": namespace_for(prefix, q.namespace),
        **search_fields(mode, SEARCH_LIMIT),
    }


def run_queries(
    client: httpx.Client,
    queries: Sequence[Query],
    mode: str,
    prefix: str,
    id_map: Mapping[str, str],
) -> ModeRun:
    """Search every query in one mode, one at a time; result ids are mapped back to corpus
    ids."""
    run = ModeRun()
    for q in queries:
        start = time.perf_counter()
        resp = client.post("/v1/search", json=search_payload(q, mode, prefix))
        run.latencies_ms.append((time.perf_counter() - start) * 1000.0)
        check(resp, f"POST /v1/search ({mode}, query {q.id})")
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


def cost_pass(
    client: httpx.Client,
    queries: Sequence[Query],
    mode: str,
    prefix: str,
    pid: int | None,
    concurrency: int,
) -> CostRun:
    """Send every query once in ``mode`` from ``concurrency`` threads sharing ``client``,
    reading the server's CPU time and model work before and after. A few searches in an
    empty namespace go first, outside the readings: a new process's first calls are slow."""
    for n in range(WARMUP_SEARCHES):
        warm = {"query": f"warm up {n}", "namespace": f"{prefix}-warmup"}
        client.post("/v1/search", json={**warm, **search_fields(mode, SEARCH_LIMIT)})
    run = CostRun(concurrency)
    lock = threading.Lock()

    def one(q: Query) -> None:
        started = time.perf_counter()
        try:
            resp = client.post("/v1/search", json=search_payload(q, mode, prefix))
            resp.raise_for_status()
        except httpx.HTTPError as exc:  # counted and reported, the pass goes on
            with lock:
                run.errors += 1
                run.first_error = run.first_error or repr(exc)[:300]
            return
        elapsed = (time.perf_counter() - started) * 1000.0
        with lock:
            run.searches += 1
            run.latencies_ms.append(elapsed)

    run.before = cost.read(client, pid)
    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, queries))
    run.wall_s = time.perf_counter() - started
    run.after = cost.read_after(client, pid)
    return run


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
        check(resp, f"POST /v1/retrieve (query {q.id})")
        body = resp.json()
        key = "answer_confidence" if body.get("answer_confidence") is not None else "best_relevance"
        run.fields[key] += 1
        run.confidence.append(float(body[key]))
        run.strong.append(bool(body["strong_match"]))
        run.thresholds.add(float(body["threshold"]))
        returned = {id_map.get(str(e["id"]), str(e["id"])) for e in body.get("entries") or []}
        run.answered.append(any(qrels[q.id].get(doc, 0) > 0 for doc in returned))
    return run
