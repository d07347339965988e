"""``python -m bench.quality``: the quality benchmark's command line (see ``bench.quality``)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.common import REQUEST_TIMEOUT_S, auth_headers, machine_info, write_json
from bench.quality import report as printed
from bench.quality import report_forms
from bench.quality.floor import floor_check
from bench.quality.forms import EVERY_TIER, RETRIEVE, TIER_A, form_groups, mode_endpoint
from bench.quality.runs import (
    FORM_LIMIT,
    ModeRun,
    Session,
    cost_pass,
    ingest,
    run_queries,
    run_retrieve,
    run_verdict,
)
from bench.quality.scores import (
    BASELINE,
    score_cost,
    score_forms,
    score_run,
    score_verdict,
    with_ratios,
)
from bench.quality.servers import BASE, Running, Served, Variant, parse_variant
from bench.quality.sets import Dataset, load_dataset
from bench.server import service_commit
from service.evaluation.beir import to_event

DEFAULT_MODES = "default,bm25,vector,hybrid"


def _variant(text: str) -> Variant:
    try:
        return parse_variant(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench.quality", description="Retrieval quality and cost of strata."
    )
    p.add_argument("dataset", type=Path, help="BEIR-format dataset directory")
    p.add_argument("--url", default="http://127.0.0.1:8080", help="service base URL")
    p.add_argument("--api-key", default=None, help="sent as Authorization: Bearer KEY")
    p.add_argument("--pid", type=int, default=None, help="service PID for CPU (with --url)")
    p.add_argument("--tier", default="A", help="tier of rows whose metadata gives none")
    p.add_argument(
        "--modes",
        default=DEFAULT_MODES,
        help="comma-separated: default (the service's own defaults), bm25, vector, hybrid, "
        "hybrid+rerank",
    )
    p.add_argument("--max-queries", type=int, default=None, help="first N judged queries")
    p.add_argument("--batch", type=int, default=256, help="events per POST /v1/events")
    p.add_argument("--no-ingest", action="store_true", help="search data already ingested")
    p.add_argument("--namespace-prefix", default="bench", help="prefix of every namespace")
    p.add_argument(
        "--verdict",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="score /v1/retrieve's confidence (default: when the service answers it)",
    )
    p.add_argument(
        "--cost",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="measure each mode's searches/s, CPU and model work per search (default: on)",
    )
    p.add_argument("--concurrency", type=int, default=8, help="clients of the cost pass")
    p.add_argument(
        "--variant",
        type=_variant,
        action="append",
        default=[],
        metavar="NAME:ENV=VALUE[,ENV=VALUE]",
        help="with --serve: also run a service with these settings (repeatable)",
    )
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="write figures here")
    p.add_argument("--serve", action="store_true", help="start the service as a subprocess")
    p.add_argument(
        "--foreign",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="another BEIR set to load and ask this set's questions in (repeatable)",
    )
    p.add_argument(
        "--plot", type=Path, default=None, metavar="OUT.png", help="plot quality and latency"
    )
    args = p.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if args.batch < 1:
        p.error("--batch must be at least 1")
    if args.concurrency < 1:
        p.error("--concurrency must be at least 1")
    if args.variant and not args.serve:
        p.error("--variant needs --serve: each variant is a service started here")
    if args.serve and args.no_ingest:
        p.error("--no-ingest needs a running service (--url): --serve starts empty ones")
    names = [v.name for v in (BASE, *args.variant)]
    if len(set(names)) < len(names):
        p.error(f"--variant: names must differ from each other and from {BASE.name!r}")
    return args


def load(args: argparse.Namespace) -> Dataset:
    return load_dataset(args.dataset, args.namespace_prefix, args.max_queries, args.foreign)


@contextlib.contextmanager
def client(url: str, args: argparse.Namespace) -> Iterator[httpx.Client]:
    top = args.concurrency + 4
    with httpx.Client(
        base_url=url,
        headers=auth_headers(args.api_key),
        timeout=REQUEST_TIMEOUT_S,
        limits=httpx.Limits(max_connections=top, max_keepalive_connections=top),
    ) as opened:
        yield opened


def run_variant(
    args: argparse.Namespace, target: Served | Running, data: Dataset
) -> dict[str, Any]:
    """Ingest, then each pass on a freshly started service (a running one is never
    restarted): per mode its searches one at a time, then from concurrent clients; bm25's
    concurrent pass for the ratio when it is not among the modes; the verdict; the passes
    scored by question form; then each foreign set loaded and its floor check."""
    prefix = args.namespace_prefix
    target.fresh()

    @contextlib.contextmanager
    def session() -> Iterator[httpx.Client]:
        target.fresh()
        with client(target.url, args) as opened:
            yield opened

    ingest_s: float | None = None
    if not args.no_ingest:
        with client(target.url, args) as c:
            ingest_s = ingest(c, data.docs, args.tier, prefix, args.batch)
    runs, costs = {}, {}
    cost_modes = [*args.modes, *([BASELINE] if BASELINE not in args.modes else [])]
    for mode in cost_modes:
        if mode in args.modes:
            with session() as c:
                runs[mode] = run_queries(c, data.queries, mode, prefix, data.id_map)
        if args.cost:
            with session() as c:
                passed = cost_pass(c, data.queries, mode, prefix, target.pid, args.concurrency)
            costs[mode] = score_cost(passed)
            print(f"  {target.variant.name} {mode}: cost pass done", file=sys.stderr)
    verdict = None
    if args.verdict is not False:
        with session() as c:
            verdict_run = run_verdict(
                c, data.queries, prefix, data.id_map, data.qrels, required=bool(args.verdict)
            )
        verdict = score_verdict(verdict_run) if verdict_run is not None else None
    groups = form_groups(data.queries)
    by_form = (
        score_forms(form_passes(session, data, runs, prefix), data.qrels, groups)
        if groups
        else None
    )
    floor = [
        floor_check(
            session, f, data.queries, tier=args.tier, batch=args.batch, load=not args.no_ingest
        )
        for f in data.foreign
    ]
    return {
        "variant": target.variant.name,
        "env": target.variant.env,
        "ingest_seconds": ingest_s,
        "ingest_docs_per_s": len(data.docs) / ingest_s if ingest_s else None,
        "modes": {mode: score_run(run, data.qrels) for mode, run in runs.items()},
        "cost": with_ratios(costs),
        "degraded": {mode: sorted(run.degraded) for mode, run in runs.items() if run.degraded},
        "verdict": verdict,
        "by_form": by_form,
        "floor": floor,
    }


def form_passes(
    session: Session, data: Dataset, runs: dict[str, ModeRun], prefix: str
) -> dict[str, ModeRun]:
    """The endpoints scored by form, each a pass of its own at ``FORM_LIMIT`` results, as an
    agent asks: the default mode's searches over every tier, the same over tier A only,
    retrieve, and every other mode's searches over every tier."""
    endpoints = {}
    for name, mode, tiers in [
        (EVERY_TIER, "default", None),
        (TIER_A, "default", ["A"]),
        *((mode_endpoint(m), m, None) for m in runs if m != "default"),
    ]:
        with session() as c:
            endpoints[name] = run_queries(
                c, data.queries, mode, prefix, data.id_map, tiers=tiers, limit=FORM_LIMIT
            )
    with session() as c:
        retrieve = run_retrieve(c, data.queries, prefix, data.id_map)
    if retrieve is not None:
        endpoints[RETRIEVE] = retrieve
    return endpoints


def benchmark(args: argparse.Namespace, data: Dataset, root: Path) -> list[dict[str, Any]]:
    """Every variant's figures, the base settings first."""
    runs = []
    for variant in [BASE, *args.variant] if args.serve else [BASE]:
        target = (
            Served(variant, args.api_key, root)
            if args.serve
            else Running(args.url.rstrip("/"), args.pid)
        )
        try:
            runs.append(run_variant(args, target, data))
        finally:
            target.stop()
    return runs


def summary(args: argparse.Namespace, data: Dataset, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON document: the base run's figures at the top, the variants' beside them."""
    base = runs[0]
    tiers = Counter(to_event(d, args.tier, args.namespace_prefix)["tier"] for d in data.docs)
    return {
        "dataset": data.name,
        "docs": len(data.docs),
        "queries": len(data.queries),
        "machine": machine_info(),
        "service_commit": service_commit() if args.serve else None,
        "tier": args.tier,
        "tiers": dict(sorted(tiers.items())),
        "ingest_seconds": base["ingest_seconds"],
        "ingest_docs_per_s": base["ingest_docs_per_s"],
        "modes": base["modes"],
        "cost": base["cost"],
        "cost_method": {
            "concurrency": args.concurrency,
            "queries_per_pass": len(data.queries),
            "fresh_service_per_pass": bool(args.serve),
            "query_outcome_cache": "off" if args.serve else "as the service runs",
            "baseline": BASELINE,
        },
        "degraded": base["degraded"],
        "verdict": base["verdict"],
        "by_form": base["by_form"],
        "floor": base["floor"],
        "variants": runs[1:],
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    data = load(args)
    with tempfile.TemporaryDirectory(prefix="strata-bench-") as tmp:
        try:
            runs = benchmark(args, data, Path(tmp))
        except (httpx.HTTPError, RuntimeError) as exc:
            print(f"benchmark failed: {exc!r}", file=sys.stderr)
            return 1
    printed.print_report(data.name, len(data.docs), len(data.queries), runs)
    for run in runs:
        for mode, reasons in run["degraded"].items():
            label = f"{run['variant']} {mode}" if len(runs) > 1 else mode
            print(f"degraded ({label}): {', '.join(reasons)}")
    if args.cost:
        method = printed.cost_method(len(data.queries), args.concurrency, bool(args.serve))
        printed.print_cost(runs, method)
    for run in runs:
        if run["verdict"] is not None:
            printed.print_verdict(run["verdict"], run["variant"] if len(runs) > 1 else None)
    report_forms.print_by_form(runs)
    report_forms.print_floor(runs)
    report = summary(args, data, runs)
    if args.json is not None:
        write_json(args.json, report)
    if args.plot is not None:
        printed.plot(report, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
