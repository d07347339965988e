"""A namespace's export, import and erasure at size: rates and the server's memory.

    python -m bench.portable [--entries 100000] [--reembed]

Fills a data directory with one namespace of ``--entries`` entries in the load workload's
tier mix (2 % A, 8 % C, 90 % E; bench/load/workload.py), with unit vectors drawn at random
for the tier A and C chunks (written through the ledger and indexed in Chroma and Tantivy,
as a write is, but without the model's time). Then, each time on a fresh ``strata serve``
process over SQLite with embedded Chroma:

- exports it with and without vectors (lines and MB per second);
- imports the file with vectors into an empty service (the model matches: nothing is
  embedded), then again (every entry unchanged), and, with ``--reembed``, the file without
  vectors (tiers A and C embedded by the model);
- erases the namespace (with its compaction).

The service's resident memory is sampled every 20 ms during each operation (from
/proc/PID/status); ``peak`` is the highest sample, ``idle`` the resident memory just before.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench.common import REPO_ROOT
from bench.load.workload import Workload
from service.domain.entries import Chunk, Entry, ExportedEntry, HistoryEvent, StoredEntry
from service.lifespan import open_runtime
from service.settings import Settings
from service.testing.engines import free_port

NAMESPACE = "bench"
BATCH = 1000
C_TTL = 7 * 86_400.0


@dataclass
class Measured:
    what: str
    seconds: float
    items: int
    megabytes: float
    idle_mb: float
    peak_mb: float

    def row(self) -> str:
        rate = self.items / self.seconds if self.seconds else 0.0
        return (
            f"| {self.what} | {self.seconds:.1f} | {rate:,.0f} | "
            f"{self.megabytes / self.seconds if self.seconds else 0:.1f} | "
            f"{self.idle_mb:.0f} | {self.peak_mb:.0f} |"
        )


def fill(data: Path, entries: int) -> None:
    """One namespace of ``entries`` entries of the load workload, vectors drawn at random."""
    settings = Settings().replace(data_dir=data, jobs="off")
    runtime = open_runtime(settings)
    embedder = runtime.stores.embedder
    assert embedder is not None, "the bench needs the embedding model for its name and size"
    rng = np.random.default_rng(7)
    workload = Workload(entries, seed=11, namespaces=1, days=60, prefix="p", now=time.time())
    batch: list[ExportedEntry] = []
    started = time.perf_counter()
    for event in workload.events():
        batch.append(_archived(event, rng, embedder.dimension))
        if len(batch) == BATCH:
            runtime.memory.transfer.restore(batch)
            batch = []
    runtime.memory.transfer.restore(batch)
    runtime.close()
    print(f"filled {entries} entries in {time.perf_counter() - started:.0f} s", file=sys.stderr)


def _archived(event: dict[str, Any], rng: np.random.Generator, dimension: int) -> ExportedEntry:
    timestamp = datetime.fromisoformat(event["timestamp"]).timestamp()
    entry = Entry(
        id=event["id"],
        namespace=NAMESPACE,
        tier=event["tier"],
        text=event["text"],
        timestamp=timestamp,
        speaker=event["speaker"],
        role=event["role"],
        chain_type=event["chain_type"],
        tags=tuple(event["tags"]),
        expires_at=timestamp + C_TTL if event["tier"] == "C" else None,
        metadata=event.get("metadata", {}),
    )
    vector = None
    if entry.embedded:
        drawn = rng.standard_normal(dimension).astype(np.float32)
        vector = tuple(float(x) for x in drawn / np.linalg.norm(drawn))
    chunk = Chunk(entry.key, 0, f"{entry.speaker}: {entry.text}", vector)
    history = (HistoryEvent(timestamp, "created", "bench"),)
    return ExportedEntry(StoredEntry(entry, (chunk,), len(entry.text.split())), history)


@contextlib.contextmanager
def server(data: Path) -> Iterator[tuple[str, int]]:
    """A fresh ``strata serve`` on ``data``; yields its URL and process id."""
    port = free_port()
    env = {**os.environ, "STRATA_JOBS": "off"}
    cmd = [sys.executable, "-m", "service", "serve", "--port", str(port), "--data-dir", str(data)]
    log = (data.parent / f"{data.name}.log").open("wb")
    process = subprocess.Popen(cmd, cwd=REPO_ROOT, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            if process.poll() is not None:
                raise SystemExit(f"the service exited; see {log.name}")
            time.sleep(0.5)
        yield url, process.pid
    finally:
        process.terminate()
        process.wait(timeout=60)
        log.close()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def measured(what: str, pid: int, run: Callable[[], tuple[int, float]]) -> Measured:
    """Run ``run`` (returning items and MB moved) while sampling the server's memory."""
    idle = rss_mb(pid)
    peak = [idle]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], rss_mb(pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    try:
        items, megabytes = run()
    finally:
        done.set()
        sampler.join()
    took = time.perf_counter() - started
    result = Measured(what, took, items, megabytes, idle, max(peak[0], rss_mb(pid)))
    print(result.row(), file=sys.stderr)
    return result


def export(url: str, file: Path, vectors: bool) -> tuple[int, float]:
    lines = 0
    params = {"vectors": "true" if vectors else "false"}
    with (
        httpx.stream(
            "GET", f"{url}/v1/namespaces/{NAMESPACE}/export", params=params, timeout=None
        ) as response,
        file.open("wb") as out,
    ):
        response.raise_for_status()
        for piece in response.iter_bytes():
            lines += piece.count(b"\n")
            out.write(piece)
    return lines, file.stat().st_size / 1e6


def import_(url: str, file: Path, namespace: str = NAMESPACE) -> tuple[int, float]:
    with file.open("rb") as source:
        response = httpx.post(
            f"{url}/v1/namespaces/{namespace}/import",
            content=iter(lambda: source.read(1 << 16), b""),
            headers={"Content-Type": "application/x-ndjson"},
            timeout=None,
        )
    response.raise_for_status()
    report = response.json()
    print(f"  {report['imported']}", file=sys.stderr)
    return report["lines"], file.stat().st_size / 1e6


def erase(url: str, namespace: str) -> tuple[int, float]:
    response = httpx.delete(
        f"{url}/v1/namespaces/{namespace}", params={"confirm": namespace}, timeout=None
    )
    response.raise_for_status()
    return int(response.json()["counts"]["entries"]), 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--reembed", action="store_true", help="also import without vectors")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="strata-portable-") as tmp:
        root = Path(tmp)
        fill(root / "source", args.entries)
        with_vectors, bare = root / "with-vectors.jsonl", root / "bare.jsonl"
        with server(root / "source") as (url, pid):
            rows.append(measured("export, vectors", pid, lambda: export(url, with_vectors, True)))
            rows.append(measured("export, no vectors", pid, lambda: export(url, bare, False)))
        with server(root / "target") as (url, pid):
            rows.append(measured("import, vectors kept", pid, lambda: import_(url, with_vectors)))
            rows.append(
                measured("import again, unchanged", pid, lambda: import_(url, with_vectors))
            )
            if args.reembed:
                rows.append(
                    measured(
                        "import, A and C embedded", pid, lambda: import_(url, bare, "reembedded")
                    )
                )
            rows.append(measured("erase (with compaction)", pid, lambda: erase(url, NAMESPACE)))
    print(f"\n{args.entries:,} entries (2 % A, 8 % C, 90 % E), SQLite, embedded Chroma\n")
    print("| operation | seconds | lines or entries / s | MB / s | idle RSS MB | peak RSS MB |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(row.row())


if __name__ == "__main__":
    main()
