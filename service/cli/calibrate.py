"""``strata calibrate``: fit ``answer_confidence`` on BEIR-format sets, locally."""

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

    datasets = [Path(d) for d in args.dataset]
    for dataset in datasets:
        if not (dataset / "corpus.jsonl").is_file() or not (dataset / "qrels.tsv").is_file():
            raise ConfigError(
                f"{dataset} is not a BEIR-format set (corpus.jsonl, queries.jsonl, qrels.tsv)"
            )
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = Settings.from_env(os.environ)
    observed = {}
    for dataset in datasets:

        def progress(stage: str, done: int, total: int, name: str = dataset.name) -> None:
            render.show_progress(done, total, f"{name} {stage}")

        observed[dataset.name] = calibrate.observe(
            settings, dataset, top_n=args.top_n, max_queries=args.max_queries, progress=progress
        )
        print(file=sys.stderr)
    fitted = calibrate.fit(observed)
    fitness = {name: calibrate.assess(fitted, found) for name, found in observed.items()}
    if args.output:
        Path(args.output).write_text(fitted.to_json(), encoding="utf-8")
    if args.json:
        sys.stdout.write(
            render.as_json(
                {
                    "calibration": {
                        "bias": fitted.bias,
                        "weights": dict(fitted.weights),
                        "threshold": fitted.threshold,
                        "source": fitted.source,
                    },
                    "sets": {name: dataclasses.asdict(f) for name, f in fitness.items()},
                }
            )
        )
    else:
        print(calibrate.report(fitted, fitness))
        if args.output:
            print(f"written to {args.output}: set STRATA_CALIBRATION={args.output} to use it")
    return OK
