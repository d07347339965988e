"""``python -m bench.load``: the load benchmark's command line (see ``bench.load``)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

import bench.load
from bench.common import machine_info, write_json
from bench.load.cluster import run_cluster
from bench.load.cluster_report import report_cluster
from bench.load.peer_runs import run_peers
from bench.load.report import plot, report
from bench.load.reranker import resolve_reranker
from bench.load.service import run_service
from bench.load.workload import TIERS, Workload
from bench.server import listener_pid, serve, served_child, service_commit, service_settings

MODES = ("default", "bm25", "vector", "hybrid", "hybrid+rerank")


def _count(text: str) -> int:
    text = text.strip().lower().replace("_", "")
    scale = 1
    if text.endswith("k"):
        text, scale = text[:-1], 1000
    elif text.endswith("m"):
        text, scale = text[:-1], 1_000_000
    value = int(float(text) * scale)
    if value < 1:
        raise argparse.ArgumentTypeError("a corpus needs at least one entry")
    return value


def _ints(text: str) -> list[int]:
    values = [int(v) for v in text.split(",") if v.strip()]
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("expected positive integers, comma-separated")
    return values


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    doc = bench.load.__doc__
    p = argparse.ArgumentParser(
        prog="python -m bench.load", description=doc.splitlines()[0] if doc else None
    )
    p.add_argument("--entries", default="10000", help="corpus sizes, comma-separated (10k, 1M)")
    p.add_argument("--serve", action="store_true", help="start a throw-away service per size")
    p.add_argument(
        "--cluster",
        action="store_true",
        help="SQLite vs Postgres ledger, one vs two replicas, all started here (see "
        "bench/load/cluster.py)",
    )
    p.add_argument("--url", default="http://127.0.0.1:8080", help="service base URL")
    p.add_argument("--api-key", default=None, help="sent as Authorization: Bearer KEY")
    p.add_argument("--pid", type=int, default=None, help="service PID for RSS (with --url)")
    p.add_argument("--data-dir", type=Path, default=None, help="service data dir (with --url)")
    p.add_argument("--chroma-url", default=None, help="STRATA_CHROMA_URL for --serve and peer")
    p.add_argument("--seed", type=int, default=7, help="workload and query seed")
    p.add_argument("--namespaces", type=int, default=4, help="namespaces of the workload")
    p.add_argument("--days", type=float, default=30.0, help="timestamps span these days")
    p.add_argument("--namespace-prefix", default="load", help="namespaces start with this")
    p.add_argument("--batch", type=int, default=500, help="events per POST /v1/events")
    p.add_argument(
        "--short-events",
        type=int,
        default=2000,
        help="one-sentence A and C events sent after the searches (0: none)",
    )
    p.add_argument("--limit", type=int, default=10, help="results per search")
    p.add_argument("--queries", type=int, default=200, help="searches per cell")
    p.add_argument("--warmup", type=int, default=5, help="uncounted searches per mode")
    p.add_argument("--max-seconds", type=float, default=60.0, help="time bound of one cell")
    p.add_argument(
        "--modes", default=",".join(MODES), help="default,bm25,vector,hybrid,hybrid+rerank"
    )
    p.add_argument("--concurrency", type=_ints, default=[1, 8, 32], help="service: 1,8,32")
    p.add_argument(
        "--peers", default="reference,chroma,tantivy", help="reference,chroma,tantivy or none"
    )
    p.add_argument("--peer-concurrency", type=_ints, default=[1, 8], help="peers: 1,8")
    p.add_argument("--reranker-model", default=None, help="cross-encoder path for --serve")
    p.add_argument(
        "--keep-expired", action="store_true", help="do not run expire_c_tier after ingest"
    )
    p.add_argument(
        "--no-ingest",
        action="store_true",
        help="with --url: the service already holds this workload (same --entries, --seed, "
        "--namespaces); only search",
    )
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="write figures")
    p.add_argument("--plot", type=Path, default=None, metavar="OUT.png", help="latency vs size")
    args = p.parse_args(argv)
    try:
        args.entries = [_count(v) for v in args.entries.split(",") if v.strip()]
    except (ValueError, argparse.ArgumentTypeError) as exc:
        p.error(f"--entries: {exc}")
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if bad := [m for m in args.modes if m not in MODES]:
        p.error(f"--modes: unknown {', '.join(bad)}")
    args.peers = (
        [] if args.peers == "none" else [x.strip() for x in args.peers.split(",") if x.strip()]
    )
    if bad := [x for x in args.peers if x not in ("reference", "chroma", "tantivy")]:
        p.error(f"--peers: unknown {', '.join(bad)}")
    if not 1 <= args.namespaces <= 64:
        p.error("--namespaces must be between 1 and 64")
    if not 1 <= args.batch <= 1000:
        p.error("--batch must be between 1 and 1000 (STRATA_MAX_BATCH)")
    if not 1 <= args.limit <= 100:
        p.error("--limit must be between 1 and 100")
    if args.no_ingest and (args.serve or args.cluster):
        p.error("--no-ingest needs a running service (--url), not --serve or --cluster")
    if args.cluster and [m for m in args.modes if m.endswith("+rerank")]:
        p.error("--cluster runs without a reranker: leave hybrid+rerank out of --modes")
    if args.queries < 1 or args.warmup < 0 or args.max_seconds <= 0:
        p.error("--queries must be at least 1, --warmup at least 0, --max-seconds positive")
    return args


def run_size(args: argparse.Namespace, entries: int, reranker_note: str) -> dict[str, Any]:
    """Every figure of one corpus size: the service's (served here or at ``--url``), then
    the peers' on the same workload and queries."""
    workload = Workload(
        entries, args.seed, args.namespaces, args.days, args.namespace_prefix, time.time()
    )
    settings = service_settings()
    workload.c_ttl_days = settings.lifecycle.c_ttl_days
    with contextlib.ExitStack() as stack:
        if args.serve:
            url = stack.enter_context(serve(args.api_key))
            pid, data_dir = served_child()
        else:
            url = args.url.rstrip("/")
            pid = args.pid or listener_pid(url)
            data_dir = args.data_dir
        service, plan, results = run_service(args, url, pid, data_dir, workload)
    service["reranker_note"] = reranker_note if "hybrid+rerank" in args.modes else None
    counts = {t: service["ingest"]["tiers"][t]["events"] for t in TIERS}
    run: dict[str, Any] = {
        "entries": entries,
        "service_commit": service_commit() if args.serve else None,
        "counts": counts,
        "namespaces": workload.namespaces,
        "query_examples": [q.__dict__ for qs in list(plan.cells.values())[:1] for q in qs[:20]],
        "service": service,
    }
    if args.peers:
        run["peers"] = run_peers(args, workload, plan, results, settings)
    return run


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if args.cluster:
        return run_cluster_main(args)
    reranker_note = "as configured in the running service"
    if args.serve:
        # serve() hands this environment to the service it starts.
        os.environ.setdefault("STRATA_JOBS", "off")
        if args.chroma_url:
            os.environ["STRATA_CHROMA_URL"] = args.chroma_url
        if "hybrid+rerank" in args.modes:
            model, reranker_note = resolve_reranker(args)
            if model is not None:
                os.environ["STRATA_RERANKER_MODEL"] = model
    runs = []
    try:
        for entries in args.entries:
            runs.append(run_size(args, entries, reranker_note))
    except (httpx.HTTPError, RuntimeError) as exc:
        print(f"benchmark failed: {exc!r}", file=sys.stderr)
        return 1
    print(report(runs, args))
    if args.json is not None:
        doc = {
            "machine": machine_info(),
            "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
            "runs": runs,
        }
        write_json(args.json, doc)
    if args.plot is not None:
        plot(runs, args.plot)
    return 0


def run_cluster_main(args: argparse.Namespace) -> int:
    # Stopped by a signal, it still stops the servers it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        runs = run_cluster(args)
    except (httpx.HTTPError, RuntimeError) as exc:
        print(f"benchmark failed: {exc!r}", file=sys.stderr)
        return 1
    print(report_cluster(runs, args))
    if args.json is not None:
        doc = {
            "machine": machine_info(),
            "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
            "runs": runs,
        }
        write_json(args.json, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
