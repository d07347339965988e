"""How fast the write path takes tier E events: events/s and service CPU per event over REST,
for this checkout against others, rounds interleaved.

Usage::

    python -m bench.ingest --against /path/to/an/earlier/checkout [--against ...]
        [--checkout .] [--events 9000] [--batch 500] [--rounds 3] [--json OUT]

The events are the first ``--events`` tier E log lines of ``bench.load``'s workload (seed 7:
commands, errors, deploys; 15 words on average, with ids, numbers and paths). Each round starts
every checkout in turn on an empty data directory (``STRATA_JOBS`` off), writes one event to
warm it, then posts the events in batches of ``--batch`` and times them; the service's CPU is
read from ``/proc``. Reported: the median over rounds of events/s and CPU µs per event, and
each checkout's ratio to the first ``--against``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.common import REPO_ROOT, machine_info, write_json
from bench.load.processes import tree_cpu
from bench.load.workload import Workload
from bench.telemetry import started

SEED = 7
NOW = 1_790_000_000.0
"""A fixed 'now' for the workload's timestamps, so every run sends the same events."""


def tier_e_events(count: int) -> list[dict[str, Any]]:
    """The first ``count`` tier E events of the load workload (one namespace's worth each)."""
    workload = Workload(max(count * 2, 1000), SEED, 4, 30.0, "ingest", NOW)
    events: list[dict[str, Any]] = []
    for event in workload.events():
        if event["tier"] == "E":
            events.append(event)
            if len(events) == count:
                break
    return events


def ingest(url: str, pid: int, events: list[dict[str, Any]], batch: int) -> dict[str, float]:
    """Events/s and service CPU µs per event of posting ``events`` in batches of ``batch``."""
    with httpx.Client(base_url=url, timeout=600.0) as client:
        warm = client.post("/v1/events", json={"events": [{**events[0], "id": "warm-up"}]})
        warm.raise_for_status()
        cpu, started_at = tree_cpu([pid]), time.perf_counter()
        for start in range(0, len(events), batch):
            sent = client.post("/v1/events", json={"events": events[start : start + batch]})
            sent.raise_for_status()
        seconds = time.perf_counter() - started_at
        used = tree_cpu([pid]) - cpu
    return {"events_per_s": len(events) / seconds, "cpu_us_per_event": used / len(events) * 1e6}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.ingest", description=__doc__.splitlines()[0])
    p.add_argument("--against", type=Path, action="append", required=True, help="a checkout")
    p.add_argument("--checkout", type=Path, default=REPO_ROOT, help="the checkout measured")
    p.add_argument("--events", type=int, default=9000)
    p.add_argument("--batch", type=int, default=500)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    events = tier_e_events(args.events)
    checkouts = {str(c): c.resolve() for c in [*args.against, args.checkout]}
    figures: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
    with tempfile.TemporaryDirectory(prefix="strata-ingest-") as tmp:
        for round_ in range(args.rounds):
            for name, code in checkouts.items():
                data_dir = Path(tmp) / f"data-{round_}-{len(figures[name])}-{code.name}"
                with started(code, {}, data_dir, Path(tmp) / "server.log") as (url, pid):
                    cell = ingest(url, pid, events, args.batch)
                figures[name].append(cell)
                print(
                    f"round {round_ + 1} {name}: {cell['events_per_s']:.0f} events/s, "
                    f"{cell['cpu_us_per_event']:.0f} µs CPU per event",
                    file=sys.stderr,
                )
    print(report(figures, len(events), args.batch))
    if args.json is not None:
        write_json(
            args.json,
            {
                "machine": machine_info(),
                "args": {k: str(v) for k, v in vars(args).items()},
                "figures": figures,
            },
        )
    return 0


def report(figures: dict[str, list[dict[str, float]]], events: int, batch: int) -> str:
    base = next(iter(figures))
    base_rate = statistics.median(c["events_per_s"] for c in figures[base])
    base_cpu = statistics.median(c["cpu_us_per_event"] for c in figures[base])
    lines = [
        f"{events} tier E events in batches of {batch}, median of {len(figures[base])} rounds",
        "",
        "| checkout | events/s | ratio | CPU µs per event | ratio |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, cells in figures.items():
        rate = statistics.median(c["events_per_s"] for c in cells)
        cpu = statistics.median(c["cpu_us_per_event"] for c in cells)
        lines.append(
            f"| {name} | {rate:.0f} | {rate / base_rate:.3f} | {cpu:.0f} | {cpu / base_cpu:.3f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
