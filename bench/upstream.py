"""What recall from an upstream adds to a search's latency.

Starts two throw-away services on the same data, one without an upstream and one asking a
scripted upstream on loopback (``service.testing.scripted_upstream``), and times searches
from a client on this machine:

- searches that find something here (the upstream must get no request: checked);
- searches that find nothing, with the upstream answering at once, after 200 ms, past the
  budget, and failing with 503, before and after the circuit breaker opens.

    python -m bench.upstream [--searches 200] [--json OUT]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx

from bench.server import serve
from service.testing.scripted_upstream import ScriptedUpstream

BUDGET_S = 1.0
FAILURES = 3
COOLDOWN_S = 5.0
"""Longer than a phase's searches after the breaker opens, which take about 2 s."""
TOPICS = [
    "billing", "invoices", "deploys", "postgres", "kafka", "oncall", "latency", "backups",
    "tokens", "payments", "search", "metrics", "alerts", "schemas", "budgets", "hiring",
]  # fmt: skip
KB = [{"id": "kb-7", "text": "Invoices are archived after 7 years.", "score": 0.8}]


@contextlib.contextmanager
def environment(**variables: str) -> Iterator[None]:
    """``os.environ`` with ``STRATA_<NAME>`` variables set while a service starts."""
    saved = dict(os.environ)
    os.environ.update({f"STRATA_{k.upper()}": v for k, v in variables.items()})
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def events(n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"note-{i}",
            "tier": "A",
            "namespace": "bench",
            "text": f"Note {i} on {TOPICS[i % len(TOPICS)]}: decided item {i} with the "
            f"{TOPICS[(i * 7) % len(TOPICS)]} team.",
        }
        for i in range(n)
    ]


def timed(client: httpx.Client, body: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    response = client.post("/v1/search", json=body)
    took = (time.perf_counter() - started) * 1000
    response.raise_for_status()
    return took, response.json()


def summary(name: str, samples: list[float], requests: int, note: str = "") -> dict[str, Any]:
    ordered = sorted(samples)
    return {
        "scenario": name,
        "n": len(samples),
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
        "mean_ms": round(statistics.fmean(ordered), 1),
        "upstream_requests": requests,
        "note": note,
    }


def phase(
    client: httpx.Client,
    scripted: ScriptedUpstream,
    n: int,
    body: Callable[[int], dict[str, Any]],
    expect: Callable[[dict[str, Any]], bool] = lambda _: True,
) -> tuple[list[float], int, list[dict[str, Any]]]:
    before, samples, answers = scripted.count, [], []
    for i in range(n):
        took, answer = timed(client, body(i))
        if not expect(answer):
            raise SystemExit(f"unexpected answer: {json.dumps(answer)[:500]}")
        samples.append(took)
        answers.append(answer)
    return samples, scripted.count - before, answers


def run(searches: int) -> list[dict[str, Any]]:
    scripted = ScriptedUpstream(KB)
    rows: list[dict[str, Any]] = []
    common = {"query_cache_size": "0", "jobs": "off"}
    asking = {
        "upstream_url": scripted.url,
        "upstream_name": "kb",
        "upstream_timeout": str(BUDGET_S),
        "upstream_failures": str(FAILURES),
        "upstream_cooldown": str(COOLDOWN_S),
    }
    with (
        environment(**common),
        serve(None) as plain_url,
        environment(**common, **asking),
        serve(None) as asking_url,
    ):
        plain = httpx.Client(base_url=plain_url, timeout=30)
        ask = httpx.Client(base_url=asking_url, timeout=30)
        for client in (plain, ask):
            client.post("/v1/events", json={"events": events(400)}).raise_for_status()

        def hit(i: int) -> dict[str, Any]:
            topic = TOPICS[i % len(TOPICS)]
            return {"namespace": "bench", "query": f"what did we decide on {topic} {i}?"}

        def empty(i: int) -> dict[str, Any]:
            return {"namespace": f"empty-{i % 7}", "query": f"invoices archived {i}"}

        found = phase(plain, scripted, searches, hit, lambda a: bool(a["results"]))
        rows.append(summary("found here, no upstream configured", found[0], found[1]))
        found = phase(ask, scripted, searches, hit, lambda a: a["upstream"] is None)
        rows.append(summary("found here, upstream configured", found[0], found[1]))

        nothing = phase(plain, scripted, searches, empty, lambda a: not a["results"])
        rows.append(summary("nothing here, no upstream configured", nothing[0], nothing[1]))
        scripted.behaviour = "answer"
        quick = phase(ask, scripted, searches, empty, lambda a: bool(a["results"]))
        rows.append(summary("nothing here, upstream answers at once", quick[0], quick[1]))
        scripted.behaviour, scripted.delay = "slow", 0.2
        late = phase(ask, scripted, 20, empty, lambda a: bool(a["results"]))
        rows.append(summary("nothing here, upstream answers in 200 ms", late[0], late[1]))

        for behaviour, label in (("slow", "never answers (5 s)"), ("fail", "answers 503")):
            scripted.behaviour, scripted.delay = behaviour, 5.0  # type: ignore[assignment]
            times, requests, answers = phase(ask, scripted, FAILURES + searches, empty)
            outcomes = [a["upstream"]["outcome"] for a in answers]
            failed = [t for t, o in zip(times, outcomes, strict=True) if o == "failed"]
            skipped = [t for t, o in zip(times, outcomes, strict=True) if o == "circuit_open"]
            rows.append(
                summary(
                    f"nothing here, upstream {label}, breaker closed",
                    failed,
                    requests,
                    f"{len(failed)} searches until the breaker opened",
                )
            )
            asked_open = sum(
                a["upstream"].get("attempts", 0)
                for a, o in zip(answers, outcomes, strict=True)
                if o == "circuit_open"
            )
            rows.append(
                summary(f"nothing here, upstream {label}, breaker open", skipped, asked_open)
            )
            reset_breaker(ask, scripted)
        plain.close()
        ask.close()
    scripted.close()
    return rows


def reset_breaker(client: httpx.Client, scripted: ScriptedUpstream) -> None:
    """Close the breaker for the next phase: wait out its cooldown, and let its trial
    succeed."""
    scripted.behaviour = "answer"
    time.sleep(COOLDOWN_S)
    _, answer = timed(client, {"namespace": "empty-0", "query": "invoices"})
    if answer["upstream"]["outcome"] != "answered":
        raise SystemExit(f"breaker not closed: {answer['upstream']}")


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| scenario | searches | p50 ms | p95 ms | mean ms | upstream requests |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        note = f" ({r['note']})" if r["note"] else ""
        lines.append(
            f"| {r['scenario']}{note} | {r['n']} | {r['p50_ms']} | {r['p95_ms']} | "
            f"{r['mean_ms']} | {r['upstream_requests']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rows = run(args.searches)
    print(table(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
