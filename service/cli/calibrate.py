"""``strata calibrate``: fit the ranking model and ``answer_confidence`` on BEIR-format sets,
locally."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path

from service.cli import render
from service.cli.exits import OK
from service.errors import ConfigError
from service.settings import Settings


def calibrate(args: argparse.Namespace) -> int:
    from service.domain.search.learned import LearnedFusion
    from service.evaluation import calibrate, left_out, ranking_fit
    from service.evaluation.workbench import Workbench

    datasets = [Path(d) for d in args.dataset]
    for dataset in datasets:
        if not (dataset / "corpus.jsonl").is_file() or not (dataset / "qrels.tsv").is_file():
            raise ConfigError(
                f"{dataset} is not a BEIR-format set (corpus.jsonl, queries.jsonl, qrels.tsv)"
            )
    set_weights = parse_weights(args.weight or [], {d.name for d in datasets})
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = Settings.from_env(os.environ)
    with contextlib.ExitStack() as stack:
        benches = []
        for dataset in datasets:
            benches.append(
                stack.enter_context(
                    Workbench.load(
                        settings,
                        dataset,
                        max_queries=args.max_queries,
                        small=args.small,
                        progress=progress_of(dataset.name),
                    )
                )
            )
            print(file=sys.stderr)
        ranking = None
        pools = {}
        learned = isinstance(benches[0].runtime.searcher.fusion, LearnedFusion)
        if learned and not args.keep_ranking:
            for bench in benches:
                pools[bench.name] = bench.candidates(progress_of(bench.name))
                print(file=sys.stderr)
            ranking = ranking_fit.fit_ranking(pools, set_weights)
            for bench in benches:
                bench.rank_with(ranking)
        observed = {}
        for bench in benches:
            observed[bench.name] = bench.observe(args.top_n, progress_of(bench.name))
            print(file=sys.stderr)
    fitted = calibrate.fit(observed)
    fitness = {name: calibrate.assess(fitted, found) for name, found in observed.items()}
    ranked = (
        {name: ranking_fit.assess_ranking(ranking, found) for name, found in pools.items()}
        if ranking is not None
        else {}
    )
    held_out = (
        left_out.leave_one_out(pools, observed, fitted, ranked, set_weights)
        if args.leave_one_out and len(observed) > 1
        else []
    )
    if args.output:
        Path(args.output).write_text(fitted.to_json(), encoding="utf-8")
    if args.ranking_output and ranking is not None:
        Path(args.ranking_output).write_text(ranking.to_json(), encoding="utf-8")
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
                    "ranking": None
                    if ranking is None
                    else {
                        "weights": dict(ranking.weights),
                        "scale": ranking.scale,
                        "bias": ranking.bias,
                        "source": ranking.source,
                        "sets": {name: dataclasses.asdict(f) for name, f in ranked.items()},
                    },
                    "left_out": [dataclasses.asdict(f) for f in held_out],
                }
            )
        )
    else:
        if ranking is not None:
            print(ranking_fit.ranking_report(ranking, ranked))
            print()
        print(calibrate.report(fitted, fitness))
        if held_out:
            print()
            print("each set fitted with it and without it (leave-one-set-out):")
            print(left_out.report(held_out))
        if args.output:
            print(f"written to {args.output}: set STRATA_CALIBRATION={args.output} to use it")
        if args.ranking_output and ranking is not None:
            print(
                f"written to {args.ranking_output}: set STRATA_RANKING_MODEL="
                f"{args.ranking_output} to use it"
            )
    return OK


def progress_of(name: str) -> Callable[[str, int, int], None]:
    def progress(stage: str, done: int, total: int) -> None:
        render.show_progress(done, total, f"{name} {stage}")

    return progress


def parse_weights(given: list[str], names: set[str]) -> dict[str, float]:
    """``NAME=WEIGHT`` pairs of ``--weight``, each naming one of the sets given."""
    found: dict[str, float] = {}
    for pair in given:
        name, _, value = pair.partition("=")
        if name not in names:
            raise ConfigError(f"--weight {pair}: {name!r} is not one of the sets given")
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if not weight >= 0 or weight == float("inf"):
            raise ConfigError(f"--weight {pair}: the weight must be a number of 0 or more")
        found[name] = weight
    return found
