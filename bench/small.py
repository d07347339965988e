"""The relevance floor in small namespaces: does the floor drop answers where memory is
small, as most agents' is?

    python -m bench.small DATASET [DATASET ...] [--max-queries 200] [--others 24] [--seed 7]

For each question of each set (the first ``--max-queries``, in the set's order), a
namespace of its own holds the question's evidence and ``--others`` other entries of the
same source (the question's namespace, when the set has several), drawn at random; the
question is asked there by ``POST /v1/search`` with the service's defaults (its floor) and
with ``min_score`` 0, ``limit`` 10. A question of the next set given that shares none of its
texts is asked there too, where nothing answers it. It prints, per set: how often the
evidence is in the top 10 with the floor and without it, what the floor costs, and how often
the other set's question gets no result, and no strong match from ``POST /v1/retrieve``. A
throw-away service is started on a free loopback port with this process's environment."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

from bench.common import machine_info
from bench.quality.runs import check
from bench.server import serve, service_commit
from service.evaluation.beir import (
    Doc,
    Query,
    load_corpus,
    load_qrels,
    load_queries,
    sanitize_id,
    to_event,
)

LIMIT = 10
BATCH = 64


@dataclass
class Small:
    """A set's questions, each with the namespace built for it."""

    name: str
    asked: list[tuple[Query, set[str], list[Doc]]]
    """Each question, the ids of its evidence and the entries of its namespace."""


def build(dataset: Path, max_queries: int, others: int, rng: random.Random) -> Small:
    docs = load_corpus(dataset)
    qrels = load_qrels(dataset)
    by_source: dict[str, list[Doc]] = {}
    for d in docs:
        by_source.setdefault(str(d.metadata.get("namespace") or ""), []).append(d)
    by_id = {d.source_id: d for d in docs}
    asked = []
    for q in load_queries(dataset):
        relevant = {i for i, grade in qrels.get(q.id, {}).items() if grade > 0 and i in by_id}
        if not relevant:
            continue
        evidence = [by_id[i] for i in sorted(relevant)]
        pool = [d for d in by_source[str(q.namespace or "")] if d.source_id not in relevant]
        asked.append((q, {by_id[i].id for i in relevant}, evidence + rng.sample(pool, others)))
        if len(asked) == max_queries:
            break
    return Small(dataset.resolve().name, asked)


def namespace_of(small: Small, n: int) -> str:
    return sanitize_id(f"small-{small.name}-{n}")[:64].rstrip("-_.")


def load(client: httpx.Client, small: Small, now: datetime) -> None:
    events = []
    for n, (_, _, docs) in enumerate(small.asked):
        for d in docs:
            event = to_event(d, "A", "", now=now)
            event["namespace"] = namespace_of(small, n)
            event.pop("supersedes", None)  # what it replaces may not be in the namespace
            events.append(event)
    for i in range(0, len(events), BATCH):
        check(client.post("/v1/events", json={"events": events[i : i + BATCH]}), "POST /v1/events")
        print(f"  {small.name}: {i + BATCH}/{len(events)} written", end="\r", file=sys.stderr)
    print(file=sys.stderr)


def found(client: httpx.Client, text: str, namespace: str, **fields: object) -> list[str]:
    payload = {"query": text, "namespace": namespace, "limit": LIMIT, **fields}
    response = client.post("/v1/search", json=payload)
    check(response, "POST /v1/search")
    return [r["id"] for r in response.json()["results"]]


def measure(client: httpx.Client, small: Small, foreign: Small) -> dict[str, float]:
    floored = unfloored = empty = weak = 0
    for n, (q, relevant, _) in enumerate(small.asked):
        namespace = namespace_of(small, n)
        floored += bool(relevant & set(found(client, q.text, namespace)))
        unfloored += bool(relevant & set(found(client, q.text, namespace, min_score=0)))
        other = foreign.asked[n % len(foreign.asked)][0].text
        empty += not found(client, other, namespace)
        answer = client.post("/v1/retrieve", json={"question": other, "namespace": namespace})
        check(answer, "POST /v1/retrieve")
        weak += not answer.json()["strong_match"]
    count = len(small.asked) or 1
    return {
        "questions": len(small.asked),
        "floor": floored / count,
        "no_floor": unfloored / count,
        "foreign_empty": empty / count,
        "foreign_weak": weak / count,
    }


def unrelated(sets: Sequence[Small], n: int) -> Small:
    """The next set after the ``n``-th that shares none of its texts (locomo-dev and
    locomo-tiers-dev hold the same conversations: a question of one is answered by the
    other); the next one when every set shares some."""
    texts = {d.text for _, _, docs in sets[n].asked for d in docs}
    after = [*sets[n + 1 :], *sets[:n]]
    for other in after:
        if not texts & {d.text for _, _, docs in other.asked for d in docs}:
            return other
    return after[0] if after else sets[n]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.small", description=__doc__)
    p.add_argument("datasets", nargs="+", type=Path)
    p.add_argument("--max-queries", type=int, default=200)
    p.add_argument("--others", type=int, default=24)
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    sets = [build(d, args.max_queries, args.others, rng) for d in args.datasets]
    print(f"machine: {machine_info()}; commit {service_commit()}")
    print()
    print(
        f"| set | questions | answer in top {LIMIT}: floor | no floor | the floor costs "
        "| another set's question: no result | not a strong match |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    now = datetime.now(UTC)
    with serve(None) as url, httpx.Client(base_url=url, timeout=300) as client:
        for small in sets:
            load(client, small, now)
        for n, small in enumerate(sets):
            foreign = unrelated(sets, n)
            m = measure(client, small, foreign)
            print(
                f"| {small.name} | {m['questions']:.0f} | {m['floor']:.3f} | {m['no_floor']:.3f} "
                f"| {m['no_floor'] - m['floor']:.3f} | {m['foreign_empty']:.1%} "
                f"| {m['foreign_weak']:.1%} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
