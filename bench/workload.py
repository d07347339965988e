"""Selective embedding on a synthetic agent workload: how much embedding work tiers avoid.

Usage: ``python -m bench.workload [--url URL | --serve] [--days 30] [--seed 7]``

Per 30 days the workload holds 50 architectural decisions (tier A, 40-120 words),
200 discussion turns (tier C, 15-60 words) and 2000 execution log lines (tier E,
8-40 words), spread evenly over the period and written through ``POST /v1/events``.
It then prints the service's ``GET /v1/stats`` totals: tokens embedded against the
tokens that embedding every event (full RAG) would have cost, and the ingest rate.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from bench.common import machine_info
from bench.server import serve

PER_30_DAYS = {"A": 50, "C": 200, "E": 2000}
WORDS = {"A": (40, 120), "C": (15, 60), "E": (8, 40)}
SPEAKERS = {
    "A": ["architect", "tech-lead"],
    "C": ["alice", "bob", "carol", "dev-bot"],
    "E": ["ci", "deploy-bot", "test-runner"],
}
CHAINS = {"A": "adr", "C": "discussion", "E": "tool-call"}
VOCABULARY = (  # noqa: SIM905
    "service cache database queue schema migration latency retry timeout deploy rollback "
    "index shard replica tenant billing invoice token session gateway auth webhook batch "
    "stream worker cron alert metric trace log build test release branch review api client "
    "storage bucket region cluster node pod config secret feature flag experiment user "
    "decided because instead keep move split merge adopt drop use prefer avoid require "
    "we the a of to for with on in after before when until should must will can not"
).split()


def events(days: int, seed: int, now: datetime) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    made = []
    for tier, per_30 in PER_30_DAYS.items():
        count = round(per_30 * days / 30)
        for n in range(count):
            low, high = WORDS[tier]
            words = [rng.choice(VOCABULARY) for _ in range(rng.randint(low, high))]
            made.append(
                {
                    "id": f"{tier.lower()}{n}",
                    "namespace": "workload",
                    "tier": tier,
                    "text": " ".join(words).capitalize() + ".",
                    "speaker": rng.choice(SPEAKERS[tier]),
                    "chain_type": CHAINS[tier],
                    "timestamp": (now - timedelta(days=days * (1 - n / count))).isoformat(),
                }
            )
    rng.shuffle(made)
    return made


def run(url: str, days: int, seed: int) -> None:
    batch = events(days, seed, datetime.now(UTC))
    with httpx.Client(base_url=url, timeout=300) as client:
        started = time.perf_counter()
        for start in range(0, len(batch), 250):
            client.post(
                "/v1/events", json={"events": batch[start : start + 250]}
            ).raise_for_status()
        seconds = time.perf_counter() - started
        stats = client.get("/v1/stats").json()
    totals = stats["totals"]
    info = machine_info()
    print(
        f"workload: {days} days, seed {seed}: "
        + ", ".join(f"{round(n * days / 30)} {tier}" for tier, n in PER_30_DAYS.items())
    )
    print(f"machine: {info['platform']}, {info['cpu_count']} CPUs")
    print(f"ingest: {len(batch)} events in {seconds:.1f} s ({len(batch) / seconds:.1f} events/s)")
    print("| tier | entries | vectors | tokens embedded | tokens |")
    print("|---|---:|---:|---:|---:|")
    for space in stats["namespaces"]:
        for tier, t in sorted(space["tiers"].items()):
            print(
                f"| {tier} | {t['active'] + t['archived']} | {t['vectors']} | "
                f"{t['tokens_embedded']} | {t['tokens']} |"
            )
    print(
        f"tokens embedded {totals['tokens_embedded']} of {totals['tokens_full_rag']} "
        f"(full RAG): embedding avoided {totals['embedding_avoided']:.1%}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--url", default="http://127.0.0.1:8080")
    parser.add_argument("--serve", action="store_true", help="start a service on a free port")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.serve:
        with serve(None) as url:
            run(url, args.days, args.seed)
    else:
        run(args.url, args.days, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
