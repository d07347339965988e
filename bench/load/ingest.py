"""Ingest of a load run: the generated stream and short events through ``POST /v1/events``."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from bench.load.queries import Reservoir
from bench.load.workload import TIERS, Workload


@dataclass
class TierIngest:
    events: int = 0
    batches: int = 0
    seconds: float = 0.0
    embedded: int = 0
    indexed: int = 0


def post_events(client: httpx.Client, events: list[dict[str, Any]]) -> tuple[Any, float]:
    """``POST /v1/events``: the response body and the seconds inside the request."""
    started = time.perf_counter()
    resp = client.post("/v1/events", json={"events": events})
    seconds = time.perf_counter() - started
    if not resp.is_success:
        raise RuntimeError(f"POST /v1/events: HTTP {resp.status_code}: {resp.text[:500]}")
    return resp.json(), seconds


def ingest(
    client: httpx.Client, workload: Workload, batch: int, reservoir: Reservoir
) -> dict[str, Any]:
    """Send the stream in one-tier batches, timing each request for its tier."""
    buffers: dict[str, list[dict[str, Any]]] = {t: [] for t in TIERS}
    tiers = {t: TierIngest() for t in TIERS}
    sent = 0

    def send(tier: str) -> None:
        nonlocal sent
        events = buffers[tier]
        body, seconds = post_events(client, events)
        stats = tiers[tier]
        stats.events += len(events)
        stats.batches += 1
        stats.seconds += seconds
        stats.embedded += int(body.get("embedded", 0))
        stats.indexed += int(body.get("indexed", 0))
        sent += len(events)
        buffers[tier] = []
        print(f"  ingested {sent}/{workload.entries}", end="\r", file=sys.stderr, flush=True)

    started = time.perf_counter()
    for event in workload.events():
        reservoir.offer(event)
        buffers[event["tier"]].append(event)
        if len(buffers[event["tier"]]) >= batch:
            send(event["tier"])
    for tier in TIERS:
        if buffers[tier]:
            send(tier)
    wall = time.perf_counter() - started
    print(file=sys.stderr)
    return {
        **ingest_report(tiers, batch),
        "wall_seconds": wall,
        "wall_events_per_s": sent / wall if wall else float("nan"),
    }


def ingest_report(tiers: Mapping[str, TierIngest], batch: int) -> dict[str, Any]:
    """Events, batches and the rate inside requests, per tier and in all."""
    per_tier = {
        t: {
            "events": s.events,
            "batches": s.batches,
            "seconds": s.seconds,
            "events_per_s": s.events / s.seconds if s.seconds else float("nan"),
            "embedded": s.embedded,
            "indexed": s.indexed,
        }
        for t, s in tiers.items()
    }
    events = sum(s.events for s in tiers.values())
    seconds = sum(s.seconds for s in tiers.values())
    return {
        "batch": batch,
        "tiers": per_tier,
        "events": events,
        "request_seconds": seconds,
        "events_per_s": events / seconds if seconds else float("nan"),
    }


def ingest_short(
    client: httpx.Client, workload: Workload, count: int, batch: int
) -> dict[str, Any]:
    """``count`` one-sentence events (8-20 words), half tier A and half tier C, into a namespace
    of their own: the embedding-bound ingest rate for short events, apart from the corpus."""
    rng = random.Random(workload.seed + 3)
    namespace = f"{workload.namespaces[0].rsplit('-', 1)[0]}-short"
    report: dict[str, Any] = {"namespace": namespace, "tiers": {}}
    for tier, n in (("A", count // 2), ("C", count - count // 2)):
        texts = [workload.sentence(rng, 8, 20) for _ in range(n)]
        seconds = 0.0
        for start in range(0, n, batch):
            events = [
                {"namespace": namespace, "tier": tier, "text": t, "speaker": "bench"}
                for t in texts[start : start + batch]
            ]
            seconds += post_events(client, events)[1]
        words = sum(len(t.split()) for t in texts) / max(n, 1)
        report["tiers"][tier] = {
            "events": n,
            "seconds": seconds,
            "events_per_s": n / seconds if seconds else float("nan"),
            "mean_words": words,
        }
    return report


def skip_ingest(workload: Workload, reservoir: Reservoir) -> dict[str, Any]:
    """For a service that already holds the workload: only sample the queries' sources."""
    counts = dict.fromkeys(TIERS, 0)
    for event in workload.events():
        reservoir.offer(event)
        counts[event["tier"]] += 1
    return {"skipped": True, "tiers": {t: {"events": n} for t, n in counts.items()}}
