"""What seeing inside the service costs: searches/s at concurrency 8 and CPU per search with
metrics off, metrics on, and metrics on with every span exported, against the same code
without telemetry, on one data directory, in one run.

Usage::

    python -m bench.telemetry --before /path/to/checkout/without/telemetry
        [--after .] [--entries 10k] [--rounds 3] [--queries 400] [--json OUT]

The workload of ``bench.load`` (``--entries``, seed 7) is ingested once by the first
variant; then each round starts every variant in turn on that data directory (``STRATA_JOBS``
off) and runs ``bench.load --no-ingest`` with modes bm25 and hybrid at concurrency 8, so
each variant sees the same queries and the machine's drift is spread over all of them.
Reported: the median over rounds of searches/s and CPU ms per search, and each variant's
ratio to the code without telemetry. Tracing exports over OTLP/HTTP to a receiver in this
process that accepts and drops every export.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT, machine_info, write_json
from bench.server import _free_port, _wait_healthy

MODES = ("bm25", "hybrid")


@contextmanager
def otlp_sink() -> Iterator[str]:
    """An OTLP/HTTP endpoint that takes every export and keeps nothing."""

    class Sink(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", _free_port()), Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()


def variants(before: Path, after: Path, sink: str) -> dict[str, tuple[Path, dict[str, str]]]:
    return {
        "without telemetry": (before, {}),
        "metrics off": (after, {"STRATA_METRICS": "off"}),
        "metrics on": (after, {"STRATA_METRICS": "on"}),
        "metrics and traces": (
            after,
            {"STRATA_METRICS": "on", "OTEL_EXPORTER_OTLP_ENDPOINT": sink},
        ),
    }


@contextmanager
def started(
    code: Path, env: dict[str, str], data_dir: Path, log: Path
) -> Iterator[tuple[str, int]]:
    port = _free_port()
    environ = {**os.environ, "STRATA_JOBS": "off", "HF_HUB_OFFLINE": "1", **env}
    environ["PYTHONPATH"] = str(code)
    command = [sys.executable, "-m", "service", "serve", "--port", str(port)]
    command += ["--data-dir", str(data_dir)]
    with log.open("ab") as out:
        process = subprocess.Popen(command, cwd=code, env=environ, stdout=out, stderr=out)
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_healthy(url, process, log)
            yield url, process.pid
        finally:
            process.terminate()
            process.wait(timeout=60)


def load(
    url: str, pid: int, data_dir: Path, args: argparse.Namespace, out: Path, ingest: bool
) -> list[dict[str, Any]]:
    command = [sys.executable, "-m", "bench.load", "--url", url, "--pid", str(pid)]
    command += ["--data-dir", str(data_dir), "--entries", args.entries, "--peers", "none"]
    command += ["--modes", ",".join(MODES), "--concurrency", "8", "--queries", str(args.queries)]
    command += ["--short-events", "0", "--json", str(out)]
    if not ingest:
        command.append("--no-ingest")
    subprocess.run(command, cwd=REPO_ROOT, check=True, stdout=subprocess.DEVNULL)
    doc = json.loads(out.read_text())
    return [
        cell
        for cell in doc["runs"][0]["service"]["search"]
        if cell["concurrency"] == 8 and cell["mode"] in MODES
    ]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.telemetry", description=__doc__.splitlines()[0]
    )
    p.add_argument("--before", type=Path, required=True, help="a checkout without telemetry")
    p.add_argument("--after", type=Path, default=REPO_ROOT, help="the checkout measured")
    p.add_argument("--entries", default="10k")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--queries", type=int, default=400)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    figures: dict[str, dict[str, list[dict[str, Any]]]] = {}
    with tempfile.TemporaryDirectory(prefix="strata-telemetry-") as tmp, otlp_sink() as sink:
        data_dir, log = Path(tmp) / "data", Path(tmp) / "server.log"
        chosen = variants(args.before.resolve(), args.after.resolve(), sink)
        first = next(iter(chosen))
        code, env = chosen[first]
        with started(code, env, data_dir, log) as (url, pid):
            print(f"ingesting {args.entries} entries", file=sys.stderr)
            load(url, pid, data_dir, args, Path(tmp) / "ingest.json", ingest=True)
        for round_ in range(args.rounds):
            for name, (code, env) in chosen.items():
                with started(code, env, data_dir, log) as (url, pid):
                    cells = load(url, pid, data_dir, args, Path(tmp) / "cell.json", ingest=False)
                for cell in cells:
                    figures.setdefault(name, {}).setdefault(cell["mode"], []).append(cell)
                    print(
                        f"round {round_ + 1} {name:20} {cell['mode']:7} "
                        f"{cell['searches_per_s']:7.1f}/s {cell['cpu_ms_per_search']:6.2f} ms CPU",
                        file=sys.stderr,
                    )
    print(report(figures))
    if args.json is not None:
        write_json(
            args.json,
            {
                "machine": machine_info(),
                "args": vars(args)
                | {"before": str(args.before), "after": str(args.after), "json": str(args.json)},
                "figures": figures,
            },
        )
    return 0


def report(figures: dict[str, dict[str, list[dict[str, Any]]]]) -> str:
    base = "without telemetry"
    lines = [
        "| variant | mode | searches/s c=8 (median) | ratio | CPU ms/search | ratio |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, modes in figures.items():
        for mode, cells in modes.items():
            rate = statistics.median(c["searches_per_s"] for c in cells)
            cpu = statistics.median(c["cpu_ms_per_search"] for c in cells)
            base_cells = figures[base][mode]
            base_rate = statistics.median(c["searches_per_s"] for c in base_cells)
            base_cpu = statistics.median(c["cpu_ms_per_search"] for c in base_cells)
            lines.append(
                f"| {name} | {mode} | {rate:.1f} | {rate / base_rate:.3f} | {cpu:.2f} | "
                f"{cpu / base_cpu:.3f} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
