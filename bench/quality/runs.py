"""The passes of a quality run over HTTP: ingest, each mode's queries one at a time (its
rankings), the same queries from concurrent clients (its cost), retrieve's rankings and
retrieve's verdict."""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from bench import cost
from bench.common import search_fields
from bench.quality.forms import entry_kind
from service.evaluation.beir import Doc, Qrels, Query, namespace_for, to_event, write_order

SEARCH_LIMIT = 100
FORM_LIMIT = 10
"""The searches scored by question form ask for what an agent asks for: 10 results."""
RETRIEVE_TOP_N = 5
"""Entries asked of each retrieve in the verdict."""
RANKED_TOP_N = 10
"""Entries asked of each retrieve whose entries are scored as a ranking."""
WARMUP_SEARCHES = 3
"""Searches sent before a cost pass, to a namespace holding nothing, outside the figures."""

Session = Callable[[], AbstractContextManager[httpx.Client]]
"""Opens a client on the service for one pass, started afresh when the run starts it."""


@dataclass
class ModeRun:
    """Raw outcome of one pass of queries asked one at a time (a mode's searches, or
    retrieve's): ranked corpus ids per query, what was returned, and timings."""

    rankings: dict[str, list[str]] = field(default_factory=dict)
    first_kinds: dict[str, str] = field(default_factory=dict)
    """Per query that got any: the kind of its first result (``forms.entry_kind``)."""
    returned: list[int] = field(default_factory=list)
    """Results (or entries) per query."""
    dropped: list[int] = field(default_factory=list)
    """The response's ``dropped`` (results under the relevance floor), where it has one."""
    strong: list[bool] = field(default_factory=list)
    """Retrieve's ``strong_match`` per query."""
    latencies_ms: list[float] = field(default_factory=list)
    took_ms: list[float] = field(default_factory=list)
    degraded: set[str] = field(default_factory=set)

    def note(
        self, query_id: str, body: Mapping[str, Any], hits: Sequence[Any], id_map: Mapping[str, str]
    ) -> None:
        """Record one answer: ``hits`` (its results or entries, best first) and the
        response ``body`` around them."""
        if body.get("took_ms") is not None:
            self.took_ms.append(float(body["took_ms"]))
        self.degraded.update(str(reason) for reason in body.get("degraded") or [])
        if isinstance(body.get("dropped"), int):
            self.dropped.append(int(body["dropped"]))
        self.returned.append(len(hits))
        if hits:
            self.first_kinds[query_id] = entry_kind(hits[0].get("type"))
        ranked: list[str] = []
        for hit in hits:
            corpus_id = id_map.get(str(hit["id"]), str(hit["id"]))
            if corpus_id not in ranked:
                ranked.append(corpus_id)
        self.rankings[query_id] = ranked


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


def ingest(
    client: httpx.Client, docs: Sequence[Doc], tier: str, prefix: str, batch: int, name: str = ""
) -> float:
    """Send the corpus (of the set ``name``, said when given); returns the wall-clock seconds
    taken."""
    embedded = indexed = 0
    # One "now" for every row: rows aged alike stay dated alike.
    now = datetime.now(UTC)
    start = time.perf_counter()
    done = 0
    # Rows that replace others (metadata.supersedes) after those they replace.
    for phase in write_order(docs):
        for i in range(0, len(phase), batch):
            events = [to_event(d, tier, prefix, now=now) for d in phase[i : i + batch]]
            resp = client.post("/v1/events", json={"events": events})
            check(resp, f"POST /v1/events (batch at {done})")
            body = resp.json()
            embedded += int(body.get("embedded", 0))
            indexed += int(body.get("indexed", 0))
            done += len(events)
            print(f"  ingested {done}/{len(docs)}", end="\r", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    print(file=sys.stderr)
    docs_per_s = len(docs) / seconds if seconds > 0 else float("inf")
    print(
        f"ingest{f' of {name}' if name else ''}: {len(docs)} docs in {seconds:.1f} s "
        f"({docs_per_s:.1f} docs/s), "
        f"embedded {embedded}, indexed {indexed}"
    )
    return seconds


def search_payload(
    q: Query,
    mode: str,
    prefix: str,
    tiers: Sequence[str] | None = None,
    limit: int = SEARCH_LIMIT,
    fields: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The search of ``q`` in ``mode``; over ``tiers`` only, and each hit with ``fields``
    only, when given."""
    return {
        "query": q.text,
        "namespace": namespace_for(prefix, q.namespace),
        **search_fields(mode, limit),
        **({"tiers": list(tiers)} if tiers else {}),
        **({"fields": list(fields)} if fields is not None else {}),
    }


def run_queries(
    client: httpx.Client,
    queries: Sequence[Query],
    mode: str,
    prefix: str,
    id_map: Mapping[str, str],
    tiers: Sequence[str] | None = None,
    limit: int = SEARCH_LIMIT,
    fields: Sequence[str] | None = None,
) -> ModeRun:
    """Search every query in one mode (over ``tiers`` only, each hit with ``fields`` only,
    when given), one at a time, for ``limit`` results; result ids are mapped back to corpus
    ids."""
    run = ModeRun()
    for q in queries:
        start = time.perf_counter()
        payload = search_payload(q, mode, prefix, tiers, limit, fields)
        resp = client.post("/v1/search", json=payload)
        run.latencies_ms.append((time.perf_counter() - start) * 1000.0)
        check(resp, f"POST /v1/search ({mode}, query {q.id})")
        body = resp.json()
        run.note(q.id, body, body.get("results") or [], id_map)
    return run


def run_retrieve(
    client: httpx.Client,
    queries: Sequence[Query],
    prefix: str,
    id_map: Mapping[str, str],
) -> ModeRun | None:
    """Ask every query through ``POST /v1/retrieve`` with ``top_n`` ``RANKED_TOP_N``, one
    at a time; its entries, in order, are its ranking. None when the service does not
    answer retrieve."""
    run = ModeRun()
    for q in queries:
        payload = {
            "question": q.text,
            "namespace": namespace_for(prefix, q.namespace),
            "top_n": RANKED_TOP_N,
        }
        start = time.perf_counter()
        resp = client.post("/v1/retrieve", json=payload)
        run.latencies_ms.append((time.perf_counter() - start) * 1000.0)
        if not run.rankings and resp.status_code in (404, 405):
            print(f"no retrieve pass: POST /v1/retrieve answered HTTP {resp.status_code}")
            return None
        check(resp, f"POST /v1/retrieve (query {q.id})")
        body = resp.json()
        run.note(q.id, body, body.get("entries") or [], id_map)
        run.strong.append(bool(body.get("strong_match")))
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
