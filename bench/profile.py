"""Where each millisecond of a search goes, by stage, for each mode and limit.

Usage::

    python -m bench.profile SET [SET ...] [--modes hybrid,default,bm25] [--limits 10,100]
        [--join N] [--max-queries N] [--json OUT]

A ``SET`` is a BEIR-format dataset directory, or ``generated:ENTRIESxWORDS`` (say
``generated:5000x250``): that many tier A entries of about that many words in one namespace,
sentences drawn from ``bench.load``'s vocabulary, asked ``bench.load``'s decision questions
(two to four keywords of one of its entries); ``ENTRIES`` of 16 words are one sentence each.

A throw-away service is started (``python -m service serve``, this tree, the query cache
off so every search is searched) and each set's corpus written into it, as
``bench.quality`` writes it, each set in namespaces of its own. With ``--join N``, every N
consecutive rows of a dataset's namespace are written as one entry: long entries from a set
of short ones (N = 10 makes LoCoMo's turns entries of about 200 words). With several sets,
each cell is run for every set in turn, and each set's p50 is also given over the first
set's: ``generated:20000x16 generated:5000x250`` compares long entries with many short ones
in one run.

Then, for each mode and limit (a *cell*), its own share of the set's questions (question i
in cell i mod cells, so no cell asks what another asked and the query-vector cache
answers none) is sent to ``POST /v1/search`` one at a time, in each question's namespace,
after a few of the cell's questions as warm-up. Around each cell the service's
``/metrics`` and its process's CPU time are read, and the table gives, per search:

- the client's p50 and p95;
- the server's CPU milliseconds;
- ``http``: the server's time answering the request
  (``strata_http_request_duration_seconds``), and within it ``search``, the searcher's
  time (``strata_search_duration_seconds``), so ``http - search`` is decoding the request,
  checking the key, presenting the results and encoding the response;
- within ``search``, each of its stages (``strata_search_stage_duration_seconds``:
  ``bm25``, ``embed``, ``vector``, ``fusion``, ``hydration``, ``ranking``).

The server's figures are means (the histograms' sums over their counts).
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
import sys
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.common import machine_info, percentile, search_fields, write_json
from bench.load.processes import tree_cpu
from bench.load.queries import Reservoir, query_stream
from bench.load.workload import Workload
from bench.quality.runs import ingest
from bench.quality.sets import load_dataset
from bench.server import listener_pid, serve, service_commit
from service.evaluation.beir import Doc, namespace_for

STAGES = ("bm25", "embed", "vector", "fusion", "hydration", "ranking", "rerank")
WARM_UP = 5
_SAMPLE = re.compile(r"^(\w+)\{([^}]*)\} ([0-9.eE+-]+|NaN)$")
_LABEL = re.compile(r'(\w+)="([^"]*)"')


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.split("\n")[0])
    p.add_argument("sets", nargs="+", metavar="SET", help="dataset dirs or generated:NxW")
    p.add_argument("--modes", default="hybrid,default,bm25")
    p.add_argument("--limits", default="10,100")
    p.add_argument("--join", type=int, default=1, help="rows of a namespace per entry")
    p.add_argument("--max-queries", type=int, default=None)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    args.limits = [int(x) for x in args.limits.split(",") if x.strip()]
    return args


def joined(docs: Sequence[Doc], n: int) -> list[Doc]:
    """Every ``n`` consecutive rows of a namespace as one row (the first row's id and
    metadata, the texts joined); the rows themselves when ``n`` is 1."""
    if n <= 1:
        return list(docs)
    by_namespace: dict[object, list[Doc]] = defaultdict(list)
    for d in docs:
        by_namespace[d.metadata.get("namespace")].append(d)
    out = []
    for rows in by_namespace.values():
        for start in range(0, len(rows), n):
            group = rows[start : start + n]
            text = " ".join(d.text for d in group)
            first = group[0]
            out.append(Doc(first.id, first.source_id, first.title, text, first.metadata))
    return out


def metric_sums(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """The ``_sum`` and ``_count`` samples of the histograms of a ``/metrics`` page."""
    found = {}
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if m and m.group(1).endswith(("_sum", "_count")):
            labels = frozenset(_LABEL.findall(m.group(2)))
            found[(m.group(1), labels)] = float(m.group(3))
    return found


def per_search(
    before: Mapping[tuple[str, frozenset[tuple[str, str]]], float],
    after: Mapping[tuple[str, frozenset[tuple[str, str]]], float],
    name: str,
    searches: int,
    **labels: str,
) -> float:
    """Milliseconds per search a histogram's sum grew by, over its samples matching
    ``labels``."""
    total = 0.0
    for (metric, sample), value in after.items():
        if metric == f"{name}_sum" and set(labels.items()) <= sample:
            total += value - before.get((metric, sample), 0.0)
    return 1000 * total / searches if searches else 0.0


def run_cell(
    client: httpx.Client,
    pid: int | None,
    questions: Sequence[tuple[str, str]],
    mode: str,
    limit: int,
) -> dict[str, Any]:
    fields = search_fields(mode, limit)
    for text, namespace in questions[:WARM_UP]:
        client.post("/v1/search", json={"query": text, "namespace": namespace, **fields})
    asked = questions[WARM_UP:]
    before = metric_sums(client.get("/metrics").text)
    cpu = tree_cpu([pid]) if pid else 0.0
    took = []
    for text, namespace in asked:
        started = time.perf_counter()
        response = client.post("/v1/search", json={"query": text, "namespace": namespace, **fields})
        took.append(time.perf_counter() - started)
        response.raise_for_status()
    cpu = (tree_cpu([pid]) - cpu) if pid else 0.0
    after = metric_sums(client.get("/metrics").text)
    n = len(asked)
    cell: dict[str, Any] = {
        "mode": mode,
        "limit": limit,
        "searches": n,
        "p50_ms": 1000 * percentile(took, 50),
        "p95_ms": 1000 * percentile(took, 95),
        "cpu_ms": 1000 * cpu / n if n else 0.0,
        "http_ms": per_search(
            before, after, "strata_http_request_duration_seconds", n, route="/v1/search"
        ),
        "search_ms": per_search(before, after, "strata_search_duration_seconds", n),
    }
    cell["stages_ms"] = {
        stage: per_search(before, after, "strata_search_stage_duration_seconds", n, stage=stage)
        for stage in STAGES
    }
    return cell


def report(cells: Sequence[Mapping[str, Any]]) -> str:
    stages = [s for s in STAGES if any(c["stages_ms"][s] for c in cells)]
    head = ["mode", "limit", "p50", "p95", "CPU", "http", "http - search", "search", *stages]
    lines = ["| " + " | ".join(head) + " |", "|---|---:|" + "---:|" * (len(head) - 2)]
    for c in cells:
        row = [
            c["mode"],
            str(c["limit"]),
            *(f"{c[k]:.2f}" for k in ("p50_ms", "p95_ms", "cpu_ms", "http_ms")),
            f"{c['http_ms'] - c['search_ms']:.2f}",
            f"{c['search_ms']:.2f}",
            *(f"{c['stages_ms'][s]:.2f}" for s in stages),
        ]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    sets = [profiled_set(spec, n, args.join, args.max_queries) for n, spec in enumerate(args.sets)]
    cells = [(mode, limit) for mode in args.modes for limit in args.limits]
    for one in sets:
        print(
            f"{one.name}: {len(one.docs)} entries, {len(one.questions)} questions", file=sys.stderr
        )
    found: dict[str, list[dict[str, Any]]] = {one.name: [] for one in sets}
    seconds: dict[str, float] = {}
    with serve(None, {"STRATA_QUERY_CACHE_SIZE": "0"}) as url:
        pid = listener_pid(url)
        with httpx.Client(base_url=url, timeout=120) as client:
            for one in sets:
                seconds[one.name] = ingest(client, one.docs, "A", one.prefix, 256, one.name)
            for n, (mode, limit) in enumerate(cells):
                for one in sets:
                    share = one.questions[n :: len(cells)]
                    found[one.name].append(run_cell(client, pid, share, mode, limit))
                print(f"  {mode} limit {limit} done", file=sys.stderr)
    for one in sets:
        print(
            f"\n{one.name}, {len(one.docs)} entries (join {one.join}), commit "
            f"{service_commit()}; milliseconds per search\n"
        )
        print(report(found[one.name]))
    if len(sets) > 1:
        print("\n" + ratios(found, sets[0].name))
    if args.json:
        write_json(
            args.json,
            {
                "machine": machine_info(),
                "sets": [
                    {
                        "name": one.name,
                        "entries": len(one.docs),
                        "join": one.join,
                        "ingest_seconds": seconds[one.name],
                        "cells": found[one.name],
                    }
                    for one in sets
                ],
            },
        )
    return 0


@dataclass(frozen=True)
class ProfiledSet:
    name: str
    prefix: str
    """Its namespaces start with this."""
    docs: list[Doc]
    questions: list[tuple[str, str]]
    """Each question's text and namespace in the service."""
    join: int


GENERATED = re.compile(r"^generated:(\d+)x(\d+)$")


def profiled_set(spec: str, n: int, join: int, max_queries: int | None) -> ProfiledSet:
    """The set ``spec`` names, in namespaces starting ``p<n>`` (``--join`` applies to a
    dataset's rows only)."""
    prefix = f"p{n}"
    shape = GENERATED.match(spec)
    if shape is None:
        path = Path(spec)
        data = load_dataset(path, prefix, max_queries)
        questions = [(q.text, namespace_for(prefix, q.namespace)) for q in data.queries]
        return ProfiledSet(path.name, prefix, joined(data.docs, join), questions, join)
    entries, words = int(shape.group(1)), int(shape.group(2))
    docs, questions = generated(entries, words, prefix, max_queries or 720)
    return ProfiledSet(spec, prefix, docs, questions, 1)


def generated(
    entries: int, words: int, prefix: str, questions: int, seed: int = 7
) -> tuple[list[Doc], list[tuple[str, str]]]:
    """``entries`` texts of sentences of 8 to 24 words, each about ``words`` long (at least
    one sentence), in one namespace; and ``questions`` decision questions of their words."""
    workload = Workload(entries, seed, 1, 30.0, prefix, time.time())
    rng = random.Random(seed)
    reservoir = Reservoir(2000, seed)
    namespace = f"gen-{entries}x{words}"
    docs = []
    for n in range(entries):
        parts = [workload.sentence(rng, 8, 24)]
        count = len(parts[0].split())
        while count < words - 12:
            parts.append(workload.sentence(rng, 8, 24))
            count += len(parts[-1].split())
        text = " ".join(parts)
        docs.append(Doc(f"g{n}", f"g{n}", "", text, {"namespace": namespace}))
        reservoir.offer({"tier": "A", "namespace": namespace, "text": text})
    asked = itertools.islice(query_stream(reservoir, seed), questions)
    return docs, [(q.text, namespace_for(prefix, q.namespace)) for q in asked]


def ratios(found: Mapping[str, Sequence[Mapping[str, Any]]], first: str) -> str:
    """Each set's p50 over the first set's, by mode and limit."""
    others = [name for name in found if name != first]
    lines = [
        "| mode | limit | " + " | ".join(f"{name} / {first}" for name in others) + " |",
        "|---|---:|" + "---:|" * len(others),
    ]
    for n, cell in enumerate(found[first]):
        parts = [f"{found[name][n]['p50_ms'] / cell['p50_ms']:.2f}x" for name in others]
        lines.append(f"| {cell['mode']} | {cell['limit']} | " + " | ".join(parts) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
