"""``python -m bench.sweep SET [SET ...]``: what a sweep of a team's reference questions does
for the questions the team asks next.

Each set is loaded into a throw-away instance as a team's memory. ``--references`` of its
questions (with their relevant entries as answers) and ``--unrelated`` questions of the sets
drawn from other sources (marked "nothing here answers this") are the references; a sweep
fits the threshold and the floor on them (for the whole deployment when the set holds
several namespaces). Then the set's other questions and other unrelated ones are asked,
under the shipped calibration and under the fit: ``strong_match`` Youden's J, the unrelated
questions given no result, and the share of questions with an answer in the first ten that
clears the floor. The same is done with only 5 references, which should change nothing
unless the folds say otherwise, and with ``--draws`` other draws of the references among
the questions asked (each fitted on its references and judged on the rest).

Printed per set; ``--json`` writes every figure.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.common import write_json
from service.domain.answers.sweep import (
    THRESHOLDS,
    Asked,
    FloorPoint,
    SweepReport,
    ThresholdPoint,
    ask,
    fit_sweep,
    fit_threshold,
    floor_curve,
    threshold_curve,
)
from service.domain.model.references import Reference
from service.evaluation.beir import Query, load_queries, namespace_for
from service.evaluation.workbench import PREFIX, Workbench
from service.settings import Settings

SEED = 7


@dataclass(frozen=True)
class Outcome:
    name: str
    shipped: dict[str, float | None]
    fitted: dict[str, float | None]
    threshold: tuple[float, float]
    floor: tuple[float, float]
    report: SweepReport
    few: SweepReport
    """The sweep of only 5 references."""
    sweep_seconds: float
    swept: int
    held_out_floors: list[FloorPoint]
    """The floor curve of the questions held out."""
    held_out_thresholds: list[ThresholdPoint]
    """The threshold curve of the questions held out, at the shipped floor."""
    draws: list[dict[str, float | None]]
    """For each further draw of the references among the questions asked: how the fit on
    them changed J, the unrelated given nothing and the top-10 of the rest."""


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.sweep", description=__doc__)
    p.add_argument("datasets", type=Path, nargs="+", help="BEIR-format dataset directories")
    p.add_argument("--references", type=int, default=40, help="answered references per set")
    p.add_argument("--unrelated", type=int, default=20, help="unrelated references per set")
    p.add_argument("--held-out", type=int, default=300, help="most other questions asked")
    p.add_argument(
        "--draws", type=int, default=6, help="draws of the references, the first included"
    )
    p.add_argument("--json", type=Path, help="write every figure here")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    questions = {d.name: load_queries(d) for d in args.datasets}
    settings = Settings.from_env(os.environ)
    outcomes = []
    for dataset in args.datasets:
        others = [
            q for name, qs in questions.items() if source(name) != source(dataset.name) for q in qs
        ]
        outcomes.append(run_set(settings, dataset, others, args))
        print(row(outcomes[-1]), flush=True)
    if args.json:
        write_json(args.json, [as_json(o) for o in outcomes])
    return 0


def source(name: str) -> str:
    """What a set was drawn from: ``locomo-dev`` and ``locomo-tiers-dev`` hold the same
    conversations, so neither's questions are unrelated to the other's memory."""
    return name.split("-", 1)[0]


def run_set(
    settings: Settings, dataset: Path, others: list[Query], args: argparse.Namespace
) -> Outcome:
    with Workbench.load(settings, dataset) as bench:
        answerer = bench.runtime.services.answers.answerer
        entry_of = {(ns, source): entry for (ns, entry), source in bench.source.items()}
        answered = []
        for query in bench.queries:
            home = namespace_for(PREFIX, query.namespace)
            ids = tuple(
                sorted(
                    entry_of[(home, doc)]
                    for doc in bench._relevant(query)
                    if (home, doc) in entry_of
                )
            )
            if ids:
                answered.append(Reference(home, f"q-{query.id}", query.text, ids, "admin", "", 0))
        draw = random.Random(SEED)
        draw.shuffle(answered)
        unrelated = others[:]
        draw.shuffle(unrelated)
        homes = bench.namespaces
        nothing = [
            Reference(homes[n % len(homes)], f"u-{q.id}", q.text, (), "admin", "", 0)
            for n, q in enumerate(unrelated[: args.unrelated + args.held_out // 3])
        ]
        shipped = answerer.tunings.of(homes[0])
        now = time.time()
        started = time.perf_counter()
        asked = [
            ask(answerer, r, now) for r in answered[: args.references] + nothing[: args.unrelated]
        ]
        report = fit_sweep(asked, shipped.threshold, shipped.floor)
        seconds = time.perf_counter() - started
        few = fit_sweep(asked[:4] + asked[args.references : args.references + 1], *_of(shipped))
        rest = answered[args.references :][: args.held_out] + nothing[args.unrelated :]
        tested = [ask(answerer, r, now) for r in rest]
        pool = asked + tested
        draws = [
            redrawn(pool, d, args, shipped.threshold, shipped.floor) for d in range(1, args.draws)
        ]
        return Outcome(
            dataset.name,
            judged(tested, shipped.threshold, shipped.floor),
            judged(tested, report.threshold, report.floor),
            (shipped.threshold, report.threshold),
            (shipped.floor, report.floor),
            report,
            few,
            seconds,
            len(asked),
            floor_curve(tested),
            threshold_curve(tested, shipped.floor),
            draws,
        )


def redrawn(
    pool: list[Asked], draw: int, args: argparse.Namespace, threshold: float, floor: float
) -> dict[str, float | None]:
    """Another draw of the references from the questions asked: how the fit on it moves
    the figures of the rest."""
    order = random.Random(SEED + draw)
    answered = [a for a in pool if a.reference.answerable]
    nothing = [a for a in pool if not a.reference.answerable]
    order.shuffle(answered)
    order.shuffle(nothing)
    references = answered[: args.references] + nothing[: args.unrelated]
    held_out = answered[args.references :] + nothing[args.unrelated :]
    report = fit_sweep(references, threshold, floor)
    before = judged(held_out, threshold, floor)
    after = judged(held_out, report.threshold, report.floor)
    changes = {
        name: _change(before[name], after[name]) for name in ("youden_j", "no_result", "top10")
    }
    return changes | ceiling(references, held_out, threshold, floor)


def ceiling(
    references: list[Asked], held_out: list[Asked], threshold: float, floor: float
) -> dict[str, float | None]:
    """What a threshold could do for the held-out questions' J, at the floor in force: the
    best threshold chosen on those questions themselves (no fit can beat it), and the one
    fitted on the references with no gate (what the cross-validation keeps or refuses)."""
    before = judged(held_out, threshold, floor)["youden_j"]
    best = max(
        (j for t in THRESHOLDS if (j := judged(held_out, t, floor)["youden_j"]) is not None),
        default=None,
    )
    ungated = judged(held_out, fit_threshold(references, floor, threshold), floor)["youden_j"]
    return {"best_threshold_j": _change(before, best), "ungated_fit_j": _change(before, ungated)}


def _change(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else after - before


def _of(tuning: Any) -> tuple[float, float]:
    return tuning.threshold, tuning.floor


def judged(asked: list[Asked], threshold: float, floor: float) -> dict[str, float | None]:
    """Youden's J of strong matches, the unrelated questions given nothing, and the
    answered questions with an answer in the first ten above the floor."""
    answerable = [a for a in asked if a.reference.answerable]
    unrelated = [a for a in asked if not a.reference.answerable]
    called = [a.strong(floor, threshold) for a in asked]
    right = [a.answered(floor) for a in asked]
    positives, negatives = sum(right), len(right) - sum(right)
    hits = sum(c and r for c, r in zip(called, right, strict=True))
    false = sum(c and not r for c, r in zip(called, right, strict=True))
    return {
        "youden_j": hits / positives - false / negatives if positives and negatives else None,
        "no_result": sum(not a.at[floor].returned for a in unrelated) / len(unrelated)
        if unrelated
        else None,
        "top10": sum(a.found(floor) for a in answerable) / len(answerable) if answerable else None,
        "questions": len(answerable),
        "unrelated": len(unrelated),
    }


def row(o: Outcome) -> str:
    s, f = o.shipped, o.fitted
    return (
        f"{o.name}: J {_f(s['youden_j'])} -> {_f(f['youden_j'])}; unrelated given nothing "
        f"{_f(s['no_result'])} -> {_f(f['no_result'])}; top-10 {_f(s['top10'])} -> "
        f"{_f(f['top10'])}; threshold {o.threshold[0]:g} -> {o.threshold[1]:g}, floor "
        f"{o.floor[0]:g} -> {o.floor[1]:g}; {o.swept} references swept in "
        f"{o.sweep_seconds:.1f} s; with 5 references {'changed' if o.few.changed else 'kept'}"
        f" ({s['questions']} questions, {s['unrelated']} unrelated held out)\n"
        f"  {o.report.reason}\n"
        f"  over {len(o.draws) + 1} draws: J {_spread(o, 'youden_j')}, unrelated given "
        f"nothing {_spread(o, 'no_result')}, top-10 {_spread(o, 'top10')}\n"
        f"  over the {len(o.draws)} further draws, J of the best threshold for the questions "
        f"held out {_drawn(o, 'best_threshold_j')}; of a threshold fitted on the references "
        f"with no gate {_drawn(o, 'ungated_fit_j')}"
    )


def _drawn(o: Outcome, name: str) -> str:
    """The mean and the least of ``name`` over the further draws."""
    found = [c for d in o.draws if (c := d.get(name)) is not None]
    if not found:
        return "-"
    return f"{sum(found) / len(found):+.3f} on average, {min(found):+.3f} at worst"


def _spread(o: Outcome, name: str) -> str:
    """The mean and the least change of ``name`` over the draws (the first one's too)."""
    first = _change(o.shipped[name], o.fitted[name])
    found = [c for c in [first, *(d[name] for d in o.draws)] if c is not None]
    if not found:
        return "-"
    return f"{sum(found) / len(found):+.3f} on average, {min(found):+.3f} at worst"


def as_json(o: Outcome) -> dict[str, Any]:
    return {
        "set": o.name,
        "shipped": o.shipped,
        "fitted": o.fitted,
        "threshold": o.threshold,
        "floor": o.floor,
        "sweep_seconds": o.sweep_seconds,
        "references": o.swept,
        "report": o.report.figures,
        "five_references": o.few.figures | {"changed": o.few.changed},
        "held_out_floors": [asdict(p) for p in o.held_out_floors],
        "held_out_thresholds": [asdict(p) for p in o.held_out_thresholds],
        "draws": o.draws,
    }


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    sys.exit(main())
