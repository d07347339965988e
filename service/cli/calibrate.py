"""``strata calibrate``: sweep the strong_match threshold on a BEIR-format set, locally."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys
from pathlib import Path

from service.cli import render
from service.cli.exits import OK
from service.errors import ConfigError
from service.settings import Settings


def calibrate(args: argparse.Namespace) -> int:
    from service import calibrate

    dataset = Path(args.dataset)
    if not (dataset / "corpus.jsonl").is_file() or not (dataset / "qrels.tsv").is_file():
        raise ConfigError(
            f"{dataset} is not a BEIR-format set (corpus.jsonl, queries.jsonl, qrels.tsv)"
        )
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = Settings.from_env(os.environ)
    observed = calibrate.observe(
        settings,
        dataset,
        top_n=args.top_n,
        max_queries=args.max_queries,
        progress=lambda stage, done, total: render.show_progress(done, total, stage),
    )
    print(file=sys.stderr)
    points = calibrate.sweep(observed)
    chosen = calibrate.recommend(points)
    if args.json:
        report = {
            "questions": len(observed),
            "answerable": sum(1 for o in observed if o.answerable),
            "points": [
                {**dataclasses.asdict(p), "f1": round(p.f1, 6), "j": round(p.youden, 6)}
                for p in points
            ],
            "recommended": chosen.threshold,
        }
        sys.stdout.write(render.as_json(report))
    else:
        print(calibrate.report(points, chosen, observed))
    return OK
