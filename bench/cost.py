"""What searches cost the server, read around a pass of searches: the CPU time of its
process tree (``/proc``) and the model work of reads it counts (``GET /v1/stats``,
``read_time``), turned into figures per search."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from bench.load.processes import tree_cpu

WORK = ("calls", "texts", "tokens")


@dataclass(frozen=True)
class Reading:
    """The server's counters at one moment; None where it could not be read."""

    cpu_s: float | None
    """CPU seconds (user + system) of the server process and its children so far."""
    queries: Mapping[str, int] | None
    """Read-time query embeddings: calls, texts, tokens."""
    passages: Mapping[str, int] | None
    """Read-time passage embeddings: calls, texts, tokens."""


def model_work(stats: Mapping[str, Any] | None) -> tuple[dict[str, int] | None, ...]:
    """The query and passage work of a ``/v1/stats`` answer; None for what it lacks (a
    server that does not count it, or queries hidden from a key limited to namespaces)."""
    read = (stats or {}).get("read_time") or {}

    def work(part: Any) -> dict[str, int] | None:
        if not isinstance(part, Mapping):
            return None
        return {k: int(part.get(k) or 0) for k in WORK}

    return work(read.get("queries")), work(read.get("passages"))


def read(client: httpx.Client, pid: int | None) -> Reading:
    """The counters now: model work first, then CPU, so that reading the stats is outside
    a CPU window that ends with ``read``."""
    resp = client.get("/v1/stats")
    queries, passages = model_work(resp.json() if resp.is_success else None)
    return Reading(tree_cpu([pid]) if pid is not None else None, queries, passages)


def read_after(client: httpx.Client, pid: int | None) -> Reading:
    """The counters at the end of a pass: CPU first, then the stats."""
    cpu = tree_cpu([pid]) if pid is not None else None
    resp = client.get("/v1/stats")
    queries, passages = model_work(resp.json() if resp.is_success else None)
    return Reading(cpu, queries, passages)


def per_search(before: Reading, after: Reading, searches: int) -> dict[str, float | None]:
    """CPU milliseconds, model calls and tokens per search between two readings; None
    where a reading lacks the figure or nothing was searched."""
    if searches <= 0:
        return dict.fromkeys(COST_FIELDS)

    def delta(a: Mapping[str, int] | None, b: Mapping[str, int] | None, key: str) -> float | None:
        return None if a is None or b is None else (b[key] - a[key]) / searches

    cpu = (
        None
        if before.cpu_s is None or after.cpu_s is None
        else (after.cpu_s - before.cpu_s) * 1000 / searches
    )
    query_calls = delta(before.queries, after.queries, "calls")
    passage_calls = delta(before.passages, after.passages, "calls")
    return {
        "cpu_ms_per_search": cpu,
        "model_calls_per_search": None
        if query_calls is None or passage_calls is None
        else query_calls + passage_calls,
        "query_calls_per_search": query_calls,
        "query_tokens_per_search": delta(before.queries, after.queries, "tokens"),
        "passage_calls_per_search": passage_calls,
        "passages_per_search": delta(before.passages, after.passages, "texts"),
        "passage_tokens_per_search": delta(before.passages, after.passages, "tokens"),
    }


COST_FIELDS = (
    "cpu_ms_per_search",
    "model_calls_per_search",
    "query_calls_per_search",
    "query_tokens_per_search",
    "passage_calls_per_search",
    "passages_per_search",
    "passage_tokens_per_search",
)


def ratio(value: float | None, base: float | None) -> float | None:
    """``value / base``; None when either is missing, not finite, or ``base`` is not
    positive."""
    if value is None or base is None or not (math.isfinite(value) and math.isfinite(base)):
        return None
    return value / base if base > 0 else None
