"""``python -m bench.context``: the command line of the context benchmark (see
``bench.context``)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.common import REQUEST_TIMEOUT_S, auth_headers, machine_info, write_json
from bench.context.report import print_report
from bench.context.runs import BUDGETS, SEARCH_LIMIT, TOP_N, ContextRun, run_context, say_progress
from bench.context.scores import score_block, score_calls
from bench.context.tokens import model_tokens
from bench.quality.runs import ingest
from bench.quality.servers import BASE, Running, Served
from bench.quality.sets import Dataset, load_dataset
from bench.server import service_commit


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench.context",
        description="Evidence inside a context block against a naive block of search results.",
    )
    p.add_argument("dataset", type=Path, help="BEIR-format dataset directory")
    p.add_argument("--url", default="http://127.0.0.1:8080", help="service base URL")
    p.add_argument("--api-key", default=None, help="sent as Authorization: Bearer KEY")
    p.add_argument("--serve", action="store_true", help="start the service as a subprocess")
    p.add_argument("--tier", default="A", help="tier of rows whose metadata gives none")
    p.add_argument("--max-queries", type=int, default=None, help="first N judged queries")
    p.add_argument("--batch", type=int, default=256, help="events per POST /v1/events")
    p.add_argument("--no-ingest", action="store_true", help="ask data already ingested")
    p.add_argument("--namespace-prefix", default="bench", help="prefix of every namespace")
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="write figures here")
    args = p.parse_args(argv)
    if args.batch < 1:
        p.error("--batch must be at least 1")
    if args.serve and args.no_ingest:
        p.error("--no-ingest needs a running service (--url): --serve starts an empty one")
    return args


def benchmark(args: argparse.Namespace, data: Dataset, root: Path) -> ContextRun:
    """Ingest the set, start the service afresh on it (caches and counters empty; a running
    one is left as it is) and ask every question."""
    target = Served(BASE, args.api_key, root) if args.serve else Running(args.url.rstrip("/"))
    counter = model_tokens()
    try:
        target.fresh()
        if not args.no_ingest:
            with client(target.url, args.api_key) as c:
                ingest(c, data.docs, args.tier, args.namespace_prefix, args.batch, data.name)
            target.fresh()
        with client(target.url, args.api_key) as c:
            return run_context(
                c,
                data,
                counter,
                tier=args.tier,
                prefix=args.namespace_prefix,
                progress=say_progress(len(data.queries)),
            )
    finally:
        target.stop()


def client(url: str, api_key: str | None) -> httpx.Client:
    return httpx.Client(base_url=url, headers=auth_headers(api_key), timeout=REQUEST_TIMEOUT_S)


def summary(args: argparse.Namespace, data: Dataset, run: ContextRun) -> dict[str, Any]:
    return {
        "dataset": data.name,
        "docs": len(data.docs),
        "queries": len(data.queries),
        "max_queries": args.max_queries,
        "machine": machine_info(),
        "service_commit": service_commit() if args.serve else None,
        "budgets": list(BUDGETS),
        "retrieve_top_n": TOP_N,
        "search_limit": SEARCH_LIMIT,
        "blocks": {key: score_block(tally) for key, tally in run.blocks.items()},
        "calls": score_calls(run.calls),
        "token_check": {"agree": run.tokens_agree, "checked": run.tokens_checked},
        "degraded": sorted(run.degraded),
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    data = load_dataset(args.dataset, args.namespace_prefix, args.max_queries)
    with tempfile.TemporaryDirectory(prefix="strata-bench-") as tmp:
        try:
            run = benchmark(args, data, Path(tmp))
        except (httpx.HTTPError, RuntimeError) as exc:
            print(f"benchmark failed: {exc!r}", file=sys.stderr)
            return 1
    report = summary(args, data, run)
    print_report(report)
    if args.json is not None:
        write_json(args.json, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
