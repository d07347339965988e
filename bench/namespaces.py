"""The keyword index against the number of namespaces: what many small namespaces and a few
large ones cost, in process, with no model (the keyword index is the store kept per
namespace; the ledger and Chroma hold every namespace in one place).

    python -m bench.namespaces [--small 1000x100] [--large 4x100000] [--seed 7]

For each layout (COUNTxENTRIES: COUNT namespaces of ENTRIES entries each), it writes the
entries in batches of 100, one namespace's at a time, round-robin over the namespaces (as
many agents write at once), then prints: entries written a second; one search at a time in a
random namespace (median and 95th percentile, searches a second); the process's open files,
threads and RSS after the searches (after the writes too); the index's bytes on disk; and
the time to rebuild the whole index from the entries (``replace_all``, as a rebuild from the
ledger does). Entries are log-like lines over a vocabulary of 5,000 words (Zipf)."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from bench.common import machine_info
from service.domain.entries import Chunk, Entry, StoredEntry
from service.domain.model import Filters
from service.stores.tantivy import TantivyKeywordStore

BATCH = 100
SEARCHES = 2000
VOCABULARY = 5000


def layout(text: str) -> tuple[int, int]:
    count, _, entries = text.lower().partition("x")
    return int(count), int(float(entries.replace("k", "e3")))


def words(rng: random.Random, n: int) -> str:
    return " ".join(f"w{int(rng.paretovariate(1.1)) % VOCABULARY}" for _ in range(n))


def entry(namespace: str, n: int, rng: random.Random, now: float) -> StoredEntry:
    text = words(rng, rng.randint(6, 30))
    e = Entry(
        id=f"e{n}",
        namespace=namespace,
        tier="E",
        text=text,
        timestamp=now - rng.random() * 86_400,
    )
    return StoredEntry(e, (Chunk(e.key, 0, text),))


def batches(names: Sequence[str], each: int, seed: int, now: float) -> Iterator[list[StoredEntry]]:
    """Round-robin: a batch of each namespace in turn, until each holds ``each``."""
    rng = random.Random(seed)
    for start in range(0, each, BATCH):
        for name in names:
            yield [entry(name, n, rng, now) for n in range(start, min(each, start + BATCH))]


def process() -> tuple[int, int, float]:
    """Open files, threads, RSS in MB of this process."""
    fds = len(os.listdir("/proc/self/fd"))
    threads = len(os.listdir("/proc/self/task"))
    with open("/proc/self/statm") as f:
        rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    return fds, threads, rss


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run(count: int, each: int, seed: int) -> None:
    now = time.time()
    names = [f"ns{n:05d}" for n in range(count)]
    with tempfile.TemporaryDirectory() as tmp:
        store = TantivyKeywordStore(Path(tmp) / "tantivy")
        started = time.perf_counter()
        for batch in batches(names, each, seed, now):
            store.apply(batch, ())
        ingest = time.perf_counter() - started
        written = process()
        rng = random.Random(seed + 1)
        took = []
        for _ in range(SEARCHES):
            filters = Filters(namespace=rng.choice(names), tiers=("A", "C", "E"), now=now)
            query = words(rng, 3)
            t = time.perf_counter()
            store.search(query, filters, 30)
            took.append(time.perf_counter() - t)
        searched = process()
        started = time.perf_counter()
        store.replace_all(batches(names, each, seed, now))
        rebuild = time.perf_counter() - started
        rebuilt = process()
        disk = size(Path(tmp) / "tantivy")
        store.close()
    took.sort()
    p50, p95 = statistics.median(took) * 1e3, took[int(0.95 * len(took))] * 1e3
    print(f"## {count} namespaces of {each:,} entries ({count * each:,} entries)")
    print(f"- writes: {count * each / ingest:,.0f} entries/s ({ingest:.1f} s, batches of {BATCH})")
    print(
        f"- search, one at a time in a random namespace: p50 {p50:.2f} ms, p95 {p95:.2f} ms, "
        f"{len(took) / sum(took):,.0f} searches/s"
    )
    for label, (fds, threads, rss) in (
        ("after the writes", written),
        ("after the searches", searched),
        ("after the rebuild", rebuilt),
    ):
        print(f"- {label}: {fds} open files, {threads} threads, RSS {rss:,.0f} MB")
    print(f"- rebuild from the entries: {rebuild:.1f} s; on disk {disk / 1e6:,.1f} MB")
    print()


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.namespaces", description=__doc__)
    p.add_argument("--small", default="1000x100", help="COUNTxENTRIES ('' to skip)")
    p.add_argument("--large", default="4x100000", help="COUNTxENTRIES ('' to skip)")
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args(argv)
    print(f"machine: {machine_info()}")
    print()
    for given in (args.small, args.large):
        if given:
            run(*layout(given), args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
