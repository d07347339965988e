"""``python -m bench.revisions``: the revised-decisions benchmark (see ``bench.revisions``)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

import bench.revisions
from bench.common import REQUEST_TIMEOUT_S, auth_headers, machine_info, write_json
from bench.load.cells import Cell, run_cell
from bench.load.ingest import ingest, post_events
from bench.load.queries import Query, QueryPlan, Reservoir
from bench.load.service import RESERVOIR, measured_cell
from bench.load.workload import Workload
from bench.revisions.corpus import Question, Topic, questions, rounds, topics
from bench.server import serve, served_child, service_commit

NAMESPACES = {"with supersession": "rev-super", "without supersession": "rev-plain"}
PAUSE_S = 1.5
"""Between two rounds of writes: the moments asked ``as_of`` fall in it."""
BATCH = 500
VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "include_superseded": {"include_superseded": True},
    "as_of now": {"as_of": "now"},
}


def iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat().replace("+00:00", "Z")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    doc = bench.revisions.__doc__
    p = argparse.ArgumentParser(
        prog="python -m bench.revisions", description=doc.splitlines()[0] if doc else None
    )
    p.add_argument("--serve", action="store_true", help="start a throw-away service")
    p.add_argument("--url", default="http://127.0.0.1:8080", help="service base URL")
    p.add_argument("--api-key", default=None, help="sent as Authorization: Bearer KEY")
    p.add_argument("--topics", type=int, default=300, help="topics decided and revised")
    p.add_argument("--seed", type=int, default=7, help="corpus, workload and query seed")
    p.add_argument("--entries", type=int, default=20000, help="cost workload (0: no cost run)")
    p.add_argument("--queries", type=int, default=200, help="searches per cost cell")
    p.add_argument("--concurrency", type=int, default=8, help="of the cost cells")
    p.add_argument("--repeats", type=int, default=2, help="cost cells per variant, in turn")
    p.add_argument("--max-seconds", type=float, default=60.0, help="time bound of one cell")
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="write figures")
    return p.parse_args(argv)


def write_corpus(client: httpx.Client, found: list[Topic], seed: int) -> list[float]:
    """Both namespaces, round by round; returns the moment after each round."""
    moments = []
    plans = {ns: rounds(found, seed, supersede=ns == "rev-super") for ns in NAMESPACES.values()}
    for r, batches in enumerate(zip(*plans.values(), strict=True)):
        for ns, events in zip(plans, batches, strict=True):
            for start in range(0, len(events), BATCH):
                part = [{**e, "namespace": ns} for e in events[start : start + BATCH]]
                post_events(client, part)
        time.sleep(PAUSE_S / 2)
        moments.append(time.time())
        print(f"  round {r}: {sum(len(b) for b in batches)} events", file=sys.stderr)
        time.sleep(PAUSE_S / 2)
    return moments


FORMS: dict[str, tuple[str, dict[str, Any]]] = {
    "search, tier A": ("/v1/search", {"tiers": ["A"], "limit": 10}),
    "search, every tier": ("/v1/search", {"limit": 10}),
    "retrieve": ("/v1/retrieve", {"top_n": 10}),
}
"""How a question is asked: a search of the decisions (tier A), a default search (auto mode,
every tier), and ``/v1/retrieve``."""


def ask(
    client: httpx.Client,
    found: list[Topic],
    asked: list[Question],
    namespace: str,
    moments: list[float],
    form: str,
) -> dict[str, float]:
    """The share of questions answered at rank 1 by the right version, and of questions with
    no other version of the topic among the results."""
    path, fields = FORMS[form]

    def one(q: Question) -> tuple[bool, bool]:
        text = {"question" if path == "/v1/retrieve" else "query": q.text}
        body: dict[str, Any] = {**fields, **text, "namespace": namespace}
        if q.as_of_round is not None:
            body["as_of"] = iso(moments[q.as_of_round])
        resp = client.post(path, json=body)
        if not resp.is_success:
            raise RuntimeError(f"HTTP {resp.status_code}: {resp.text[:300]}")
        doc = resp.json()
        ids = [hit["id"] for hit in doc.get("results", doc.get("entries", []))]
        topic = found[q.topic]
        right = topic.ids[q.version]
        stale = set(topic.ids[: q.version])
        return bool(ids) and ids[0] == right, not stale & set(ids)

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(one, asked))
    n = len(answers) or 1
    worded = [a for q, (a, _) in zip(asked, answers, strict=True) if q.worded]
    plain = [a for q, (a, _) in zip(asked, answers, strict=True) if not q.worded]
    return {
        "questions": len(answers),
        "rank1": sum(a for a, _ in answers) / n,
        "older_absent": sum(b for _, b in answers) / n,
        "rank1_worded": sum(worded) / (len(worded) or 1),
        "rank1_plain": sum(plain) / (len(plain) or 1),
        "worded": len(worded),
    }


def quality(client: httpx.Client, args: argparse.Namespace) -> dict[str, Any]:
    found = topics(args.topics, args.seed)
    now, then = questions(found, args.seed + 1)
    print(f"writing {len(found)} topics", file=sys.stderr)
    moments = write_corpus(client, found, args.seed)
    figures: dict[str, Any] = {
        "topics": len(found),
        "versions": sum(len(t.options) for t in found),
        "revisions": {k: sum(1 for t in found if t.revisions == k) for k in (1, 2, 3)},
    }
    for form in FORMS:
        for label, ns in NAMESPACES.items():
            figures[f"{form}, {label}"] = {
                "now": ask(client, found, now, ns, moments, form),
                "as_of": ask(client, found, then, ns, moments, form),
            }
    return figures


def cost(client: httpx.Client, args: argparse.Namespace, pid: int | None) -> dict[str, Any]:
    """Searches/s of the load benchmark's queries at ``--concurrency``, per variant."""
    workload = Workload(args.entries, args.seed, 4, 30.0, "load", time.time())
    reservoir = Reservoir(RESERVOIR, args.seed + 1)
    print(f"ingesting {args.entries} entries", file=sys.stderr)
    ingest(client, workload, BATCH, reservoir)
    plan = QueryPlan(reservoir, args.seed + 2, args.queries, 5)
    cells: dict[str, list[dict[str, Any]]] = {v: [] for v in VARIANTS}
    for name, fields in VARIANTS.items():
        run_cell(
            searcher(client, fields), plan.warmup(name), 1, args.max_seconds, Cell("w", name, 1)
        )
    for repeat in range(args.repeats):
        for name, fields in VARIANTS.items():
            cell = Cell("service", name, args.concurrency)
            queries = plan.cell(f"{name} {repeat}", args.concurrency)
            summary = measured_cell(client, pid, searcher(client, fields), queries, cell, args)
            summary.pop("latencies_ms", None)
            cells[name].append(summary)
            print(
                f"  {name} #{repeat + 1}: {summary['searches_per_s']:.1f}/s, "
                f"p50 {summary['p50_ms']:.1f} ms",
                file=sys.stderr,
            )
    return cells


def searcher(client: httpx.Client, fields: dict[str, Any]) -> Any:
    def search(q: Query) -> tuple[list[str], float | None, list[str], bool]:
        extra = dict(fields)
        if extra.get("as_of") == "now":
            extra["as_of"] = iso(time.time())
        body = {"limit": 10, **extra, "query": q.text, "namespace": q.namespace}
        resp = client.post("/v1/search", json=body)
        if not resp.is_success:
            raise RuntimeError(f"HTTP {resp.status_code}: {resp.text[:300]}")
        doc = resp.json()
        ids = [str(hit["id"]) for hit in doc["results"]]
        return ids, doc.get("took_ms"), list(doc.get("degraded") or []), bool(doc.get("relaxed"))

    return search


def split(figures: dict[str, Any]) -> str:
    """Rank 1 of the questions worded as asking for a decision, and of the others."""
    return f"{figures['rank1_worded']:.1%} / {figures['rank1_plain']:.1%}"


def report(run: dict[str, Any], args: argparse.Namespace) -> str:
    q = run["quality"]
    lines = [
        f"Revised decisions: {q['topics']} topics, {q['versions']} versions "
        f"(revised once {q['revisions'][1]}, twice {q['revisions'][2]}, "
        f"three times {q['revisions'][3]}), seed {args.seed}",
        "",
        "| asked by | corpus | current at rank 1 (worded / plain) "
        "| older versions absent (top 10) "
        "| right version at rank 1, as_of (worded / plain) | older versions absent, as_of |",
        "|---|---|---|---|---|---|",
    ]
    for form in FORMS:
        for label in NAMESPACES:
            now, then = q[f"{form}, {label}"]["now"], q[f"{form}, {label}"]["as_of"]
            lines.append(
                f"| {form} | {label} | {now['rank1']:.1%} ({split(now)}) "
                f"| {now['older_absent']:.1%} "
                f"| {then['rank1']:.1%} ({split(then)}) | {then['older_absent']:.1%} |"
            )
    if run.get("cost"):
        lines += [
            "",
            f"Cost: {args.entries} mixed entries (bench.load workload), default searches at "
            f"c={args.concurrency}, {args.queries} new queries per cell, cells in turn",
            "",
            "| variant | searches/s (each cell) | p50 ms (each cell) | server CPU ms/search |",
            "|---|---|---|---|",
        ]
        for name, cells in run["cost"].items():
            rates = ", ".join(f"{c['searches_per_s']:.1f}" for c in cells)
            p50s = ", ".join(f"{c['p50_ms']:.0f}" for c in cells)
            cpu = ", ".join(
                f"{c['cpu_ms_per_search']:.1f}" if c.get("cpu_ms_per_search") else "-"
                for c in cells
            )
            lines.append(f"| {name} | {rates} | {p50s} | {cpu} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        pid = None
        if args.serve:
            os.environ.setdefault("STRATA_JOBS", "off")
            url = stack.enter_context(serve(args.api_key))
            pid, _ = served_child()
        else:
            url = args.url.rstrip("/")
        client = stack.enter_context(
            httpx.Client(
                base_url=url, headers=auth_headers(args.api_key), timeout=REQUEST_TIMEOUT_S
            )
        )
        run: dict[str, Any] = {"service_commit": service_commit() if args.serve else None}
        try:
            run["quality"] = quality(client, args)
            run["cost"] = cost(client, args, pid) if args.entries else None
        except (httpx.HTTPError, RuntimeError) as exc:
            print(f"benchmark failed: {exc!r}", file=sys.stderr)
            return 1
    run["wall_seconds"] = time.perf_counter() - started
    print(report(run, args))
    if args.json is not None:
        arguments = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
        write_json(args.json, {"machine": machine_info(), "args": arguments, "run": run})
    return 0


if __name__ == "__main__":
    sys.exit(main())
