"""The pass of a context run over HTTP: per question a retrieve, a context call at each
budget and one search, one call at a time, with the service's read-time model work read
around each call (outside its timing)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench import cost
from bench.context.blocks import Hit, Shown, inside, naive_block
from bench.context.scores import (
    CONTEXT,
    NAIVE,
    RETRIEVE,
    SEARCH,
    BlockTally,
    CallTally,
    block_key,
)
from bench.quality.runs import check
from bench.quality.sets import Dataset
from service.domain.tokens import TokenCounter
from service.evaluation.beir import Doc, namespace_for, to_event

BUDGETS = (256, 512, 1024)
TOP_N = 10
"""Entries a retrieve is asked for: as many as a context call considers by default."""
SEARCH_LIMIT = 50
"""Results a search is asked for: more than the largest budget holds of either set."""
WARMUP_CALLS = 3
"""Retrieves and context calls sent first, to a namespace holding nothing, outside the
figures: a new process's first calls are slow."""


@dataclass
class ContextRun:
    blocks: dict[str, BlockTally] = field(default_factory=dict)
    """By ``block_key(CONTEXT | NAIVE, budget)``."""
    calls: dict[str, CallTally] = field(default_factory=dict)
    """By ``RETRIEVE``, ``block_key(CONTEXT, budget)`` and ``SEARCH``."""
    tokens_agree: int = 0
    """Context blocks whose ``tokens`` the local counter counts alike."""
    tokens_checked: int = 0
    degraded: set[str] = field(default_factory=set)


def relevant_texts(
    docs: Mapping[str, Doc], grades: Mapping[str, int], tier: str, prefix: str
) -> dict[str, str]:
    """Service id → text as stored (the title in front, as written) of the documents
    ``grades`` (corpus id → grade) marks relevant, of those in ``docs`` (by corpus id)."""
    return {
        docs[source].id: str(to_event(docs[source], tier, prefix)["text"])
        for source, grade in grades.items()
        if grade > 0 and source in docs
    }


def timed_call(
    client: httpx.Client, path: str, payload: Mapping[str, Any], tally: CallTally, what: str
) -> dict[str, Any]:
    """POST ``payload`` to ``path``, timed into ``tally`` with the model work it caused."""
    before = cost.read(client, None)
    started = time.perf_counter()
    resp = client.post(path, json=payload)
    elapsed = (time.perf_counter() - started) * 1000.0
    after = cost.read(client, None)
    check(resp, f"POST {path} ({what})")
    tally.latencies_ms.append(elapsed)
    work = model_work(before, after)
    tally.model_calls.append(work[0] if work is not None else None)
    if work is not None:
        tally.query_tokens.append(work[1])
    body: dict[str, Any] = resp.json()
    return body


def model_work(before: cost.Reading, after: cost.Reading) -> tuple[int, int] | None:
    """Model calls (query and passage embeddings) and query tokens between two readings;
    None when a reading lacks them."""
    if before.queries is None or before.passages is None:
        return None
    if after.queries is None or after.passages is None:
        return None
    calls = after.queries["calls"] + after.passages["calls"]
    calls -= before.queries["calls"] + before.passages["calls"]
    return calls, after.queries["tokens"] - before.queries["tokens"]


def warm_up(client: httpx.Client, prefix: str) -> None:
    for n in range(WARMUP_CALLS):
        empty = {"question": f"warm up {n}", "namespace": f"{prefix}-warmup"}
        client.post("/v1/retrieve", json={**empty, "top_n": TOP_N})
        client.post("/v1/context", json=empty)


def run_context(
    client: httpx.Client,
    data: Dataset,
    counter: TokenCounter,
    *,
    tier: str,
    prefix: str,
    budgets: Sequence[int] = BUDGETS,
    progress: Callable[[int], None] | None = None,
) -> ContextRun:
    """Every judged question of ``data``, one call at a time: a retrieve and a context call
    at each budget, in ``call_order``, then a search whose results make the naive block at
    each budget."""
    run = ContextRun()
    kinds = [RETRIEVE, *(block_key(CONTEXT, b) for b in budgets)]
    for kind in [*kinds, SEARCH]:
        run.calls[kind] = CallTally()
    for budget in budgets:
        run.blocks[block_key(CONTEXT, budget)] = BlockTally()
        run.blocks[block_key(NAIVE, budget)] = BlockTally()
    warm_up(client, prefix)
    by_source = {d.source_id: d for d in data.docs}
    for n, q in enumerate(data.queries):
        namespace = namespace_for(prefix, q.namespace)
        relevant = relevant_texts(by_source, data.qrels[q.id], tier, prefix)
        asked = {"question": q.text, "namespace": namespace}
        for kind in call_order(n, kinds):
            if kind == RETRIEVE:
                payload = {**asked, "top_n": TOP_N}
                body = timed_call(client, "/v1/retrieve", payload, run.calls[kind], q.id)
                run.degraded.update(str(r) for r in body.get("degraded") or [])
                continue
            budget = budgets[kinds.index(kind) - 1]
            payload = {**asked, "max_tokens": budget}
            body = timed_call(client, "/v1/context", payload, run.calls[kind], q.id)
            note_context(run, body, relevant, counter, budget)
        payload = {"query": q.text, "namespace": namespace, "limit": SEARCH_LIMIT}
        body = timed_call(client, "/v1/search", payload, run.calls[SEARCH], q.id)
        run.degraded.update(str(r) for r in body.get("degraded") or [])
        hits = [Hit(str(h["id"]), str(h.get("text") or "")) for h in body.get("results") or []]
        for budget in budgets:
            naive = naive_block(hits, counter, budget)
            found = inside(naive.text, relevant)
            run.blocks[block_key(NAIVE, budget)].note(
                found, len(relevant), naive.tokens, len(naive.ids), budget
            )
        if progress is not None:
            progress(n + 1)
    return run


def call_order(n: int, kinds: Sequence[str]) -> list[str]:
    """The calls of the ``n``-th question: ``kinds`` turned by ``n`` places. The service
    keeps the vectors of recent questions, so the first call of a question embeds it and
    the others find its vector; turning the order gives each kind the first place equally
    often."""
    turn = n % len(kinds) if kinds else 0
    return [*kinds[turn:], *kinds[:turn]]


def note_context(
    run: ContextRun,
    body: Mapping[str, Any],
    relevant: Mapping[str, str],
    counter: TokenCounter,
    budget: int,
) -> None:
    """Score one context response and check its ``tokens`` against the local counter."""
    block = str(body.get("context") or "")
    shown = [Shown(str(e["id"]), str(e.get("text") or "")) for e in body.get("entries") or []]
    found = inside(block, relevant, shown)
    tokens = int(body["tokens"])
    run.blocks[block_key(CONTEXT, budget)].note(found, len(relevant), tokens, len(shown), budget)
    (counted,) = counter.count([block])
    run.tokens_checked += 1
    run.tokens_agree += counted == tokens
    run.degraded.update(str(r) for r in body.get("degraded") or [])


def say_progress(total: int) -> Callable[[int], None]:
    def said(done: int) -> None:
        print(f"  asked {done}/{total}", end="\r", file=sys.stderr, flush=True)
        if done == total:
            print(file=sys.stderr)

    return said
