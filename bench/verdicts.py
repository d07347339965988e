"""``python -m bench.verdicts SET``: what finding a reference question's verdict costs a
retrieve.

The set is loaded into a throw-away instance; each namespace is given ``--references``
reference questions (of the set's questions, or of made-up ones when it has fewer). Every
question of the set is then retrieved in rounds, alternately with the lookup of the
namespace's reference of the same words and without it (``Answerer.references`` None), and
each pass's retrieves per second and CPU per retrieve printed, with the share of retrieves a
reference answered, then what the lookup alone takes. One process, one thread.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from service.domain.model.references import Reference
from service.evaluation.beir import namespace_for
from service.evaluation.workbench import PREFIX, Workbench
from service.settings import Settings


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.verdicts", description=__doc__)
    p.add_argument("dataset", type=Path, help="a BEIR-format dataset directory")
    p.add_argument("--references", type=int, default=1000, help="references per namespace")
    p.add_argument("--questions", type=int, default=300, help="questions retrieved per pass")
    p.add_argument("--rounds", type=int, default=3, help="passes with and without, each")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with Workbench.load(Settings.from_env(os.environ), args.dataset) as bench:
        answerer = bench.runtime.services.answers.answerer
        references = answerer.references
        assert references is not None
        questions = [(namespace_for(PREFIX, q.namespace), q.text) for q in bench.queries]
        questions = questions[: args.questions]
        now = time.time()
        for namespace in bench.namespaces:
            asked = [text for home, text in questions if home == namespace]
            made = [f"made-up question {n}?" for n in range(args.references - len(asked))]
            references.add_references(
                [
                    Reference(namespace, f"r{n}", text, (), "admin", "bench", now)
                    for n, text in enumerate([*asked, *made][: args.references])
                ]
            )
        for n in range(args.rounds * 2):
            looked_up = n % 2 == 0
            answerer.references = references if looked_up else None
            wall, cpu = time.perf_counter(), time.process_time()
            judged = sum(
                answerer.retrieve(text, home, now, record=False).reference is not None
                for home, text in questions
            )
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            print(
                f"{'with' if looked_up else 'without'} the lookup: "
                f"{len(questions) / wall:.1f} retrieves/s, "
                f"{cpu / len(questions) * 1000:.2f} ms CPU per retrieve, "
                f"{judged / len(questions):.0%} given a reference's verdict",
                flush=True,
            )
        started = time.perf_counter()
        for home, text in questions * 10:
            references.reference_asking(home, text)
        alone = (time.perf_counter() - started) / (len(questions) * 10)
        print(f"the lookup alone: {alone * 1e6:.0f} µs", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
