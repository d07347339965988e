"""``python -m bench.side_by_side``: the command line (see ``bench.side_by_side``)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import machine_info, write_json
from bench.quality.runs import ModeRun
from bench.quality.sets import Dataset, load_dataset
from bench.server import service_commit
from bench.side_by_side import peer_venv, report
from bench.side_by_side.strata import HITS, PREFIX, WARMUP, run_strata
from service.evaluation.beir import namespace_for, to_event


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench.side_by_side", description="strata beside LanceDB and txtai."
    )
    p.add_argument("dataset", type=Path, help="BEIR-format dataset directory")
    p.add_argument("--modes", default="hybrid,default,bm25", help="strata's modes, comma-separated")
    p.add_argument("--limits", default="100,10", help="results asked, comma-separated")
    p.add_argument(
        "--hits",
        default=",".join(HITS),
        help="what strata's hits carry, comma-separated: ids (id and score, as the peers"
        " answer), whole (every field)",
    )
    p.add_argument("--tier", default="A", help="tier of rows whose metadata gives none")
    p.add_argument("--max-queries", type=int, default=None, help="first N judged questions")
    p.add_argument("--only", choices=("strata", "peers"), default=None, help="one side only")
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="write figures here")
    args = p.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    args.hits = [h.strip() for h in args.hits.split(",") if h.strip()]
    if unknown := set(args.hits) - set(HITS):
        p.error(f"--hits: unknown {sorted(unknown)}; one of {sorted(HITS)}")
    args.limits = sorted({int(x) for x in args.limits.split(",") if x.strip()}, reverse=True)
    return args


def peer_spec(data: Dataset, tier: str, limits: Sequence[int]) -> dict[str, Any]:
    """What the peers read: each row as the service indexes it (``speaker: text``) in the
    service's namespace, and the questions."""
    docs = []
    for d in data.docs:
        event = to_event(d, tier, PREFIX)
        speaker = event.get("speaker")
        text = f"{speaker}: {event['text']}" if speaker else event["text"]
        docs.append({"id": d.source_id, "namespace": event["namespace"], "text": text})
    queries = [
        {"id": q.id, "namespace": namespace_for(PREFIX, q.namespace), "text": q.text}
        for q in data.queries
    ]
    return {"docs": docs, "queries": queries, "limits": list(limits), "warmup": WARMUP}


def peer_runs(found: dict[str, Any]) -> dict[int, ModeRun]:
    return {
        int(limit): ModeRun(rankings=run["rankings"], latencies_ms=run["latencies_ms"])
        for limit, run in found["passes"].items()
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    data = load_dataset(args.dataset, PREFIX, args.max_queries)
    n = len(data.docs)
    rows: dict[str, dict[str, Any]] = {}
    doc: dict[str, Any] = {"dataset": data.name, "docs": n, "machine": machine_info()}
    with tempfile.TemporaryDirectory(prefix="strata-side-by-side-") as tmp:
        if args.only != "peers":
            ingest_s, runs = run_strata(
                data, args.modes, args.limits, args.tier, Path(tmp), args.hits
            )
            for mode, by_limit in runs.items():
                rows[f"strata {mode}"] = report.row(by_limit, data.qrels, ingest_s, n)
            doc["service_commit"] = service_commit()
        if args.only != "strata":
            found = peer_venv.run_peers(peer_spec(data, args.tier, args.limits), Path(tmp))
            for name, system in found["systems"].items():
                rows[name] = report.row(peer_runs(system), data.qrels, system["build_seconds"], n)
            doc["peers"] = {"model": found["model"], "versions": found["versions"]}
    report.print_table(data.name, n, rows, args.limits)
    if args.json is not None:
        write_json(args.json, {**doc, "rows": rows, "ratios": report.ratios(rows, args.limits[0])})
    return 0


if __name__ == "__main__":
    sys.exit(main())
