"""The route a request takes through the code: the service's modules a tier E write and a
hybrid search pass through, counted from the calls they make.

    python -m bench.walks [--json FILE]

Runs the application in this process over embedded stores in a temporary directory (the
real model; no reranker, no scheduled jobs), writes a tier A entry and three tier E ones,
searches three times to warm every cache, then records one tier E write and one hybrid
search with a profile hook on every thread. For each it prints the modules of ``service``
entered and their folders; the stays in ``service/domain`` (a stay is a run of calls in one
module; the stays of the domain alone, ignoring the edge, stores and mechanisms between)
and how many of them return to a module already left; how often control passes from the
memory (``service/domain/memory``) to a store adapter (``service/stores``); the vector
store's functions called; and how often the write asked whether an entry is a digest.

Counts are of the calls the interpreter makes, so they read the same on any machine; they
change when the code does, which is what they are for: run it before and after moving code.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from types import FrameType
from typing import Any

PACKAGE = f"{os.sep}service{os.sep}"


@dataclass(frozen=True)
class Call:
    module: str
    """The callee's file, under ``service/`` (``domain/memory/writing.py``)."""
    function: str


@dataclass
class Recorder:
    """Collects the calls into ``service`` modules while ``on``, from every thread."""

    on: bool = False
    calls: list[Call] = field(default_factory=list)

    def __call__(self, frame: FrameType, event: str, _: Any) -> None:
        if not self.on or event != "call":
            return
        path = frame.f_code.co_filename
        if PACKAGE in path and "site-packages" not in path:
            module = path.rsplit(PACKAGE, 1)[1].replace(os.sep, "/")
            self.calls.append(Call(module, frame.f_code.co_name))

    def record(self, action: Callable[[], None]) -> list[Call]:
        self.calls = []
        self.on = True
        try:
            action()
        finally:
            self.on = False
        return self.calls


def stays(modules: list[str]) -> list[str]:
    """``modules`` with each run of one module counted once."""
    return [m for n, m in enumerate(modules) if n == 0 or modules[n - 1] != m]


def summary(calls: list[Call]) -> dict[str, Any]:
    modules = [c.module for c in calls]
    entered = list(dict.fromkeys(modules))
    domain = stays([m for m in modules if m.startswith("domain/")])
    layers = stays(
        [
            "memory" if m.startswith("domain/memory/") else m.split("/", 1)[0]
            for m in modules
            if m.startswith(("domain/", "stores/"))
        ]
    )
    return {
        "modules": len(entered),
        "folders": len({m.rsplit("/", 1)[0] if "/" in m else "." for m in entered}),
        "domain_modules": len(set(domain)),
        "domain_stays": len(domain),
        "domain_returns": sum(1 for n, m in enumerate(domain) if m in domain[:n]),
        "memory_to_stores": sum(1 for a, b in pairwise(layers) if (a, b) == ("memory", "stores")),
        "vector_store_calls": dict(
            Counter(c.function for c in calls if c.module == "stores/chroma.py")
        ),
        "digest_checks": sum(1 for c in calls if c.function == "is_digest"),
        "entered": entered,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="also write the figures, with the modules entered, here")
    args = parser.parse_args(argv)

    os.environ.update(
        STRATA_DATA_DIR=tempfile.mkdtemp(prefix="strata-walks-"),
        STRATA_JOBS="off",
        STRATA_RERANKER_MODEL="",
    )
    recorder = Recorder()
    threading.setprofile(recorder)  # before the app starts the threads it works on
    sys.setprofile(recorder)
    from litestar.testing import TestClient

    from service.app import create_app

    with TestClient(create_app(), base_url="http://127.0.0.1") as client:

        def post(path: str, body: dict[str, Any]) -> None:
            response = client.post(path, json=body)
            if not response.is_success:
                raise SystemExit(f"{path} answered {response.status_code}: {response.text}")

        def write(n: int) -> None:
            text = f"deploy step {n} of build 7 finished: cache warmed"
            post("/v1/events", {"events": [{"namespace": "walk", "tier": "E", "text": text}]})

        def search() -> None:
            question = "which deploy step warmed the cache?"
            post("/v1/search", {"namespace": "walk", "query": question, "mode": "hybrid"})

        decision = "We warm the cache before each deploy."
        post("/v1/events", {"events": [{"namespace": "walk", "tier": "A", "text": decision}]})
        for n in range(3):
            write(n)
            search()
        walks = {
            "tier E write": summary(recorder.record(lambda: write(99))),
            "hybrid search": summary(recorder.record(search)),
        }
    sys.setprofile(None)
    threading.setprofile(None)
    for name, figures in walks.items():
        shown = {k: v for k, v in figures.items() if k != "entered"}
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in shown.items()))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(walks, out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
