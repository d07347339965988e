"""The ledger's hot operations alone, on SQLite and on a throw-away Postgres: bulk writes of
tier E and tier A entries, and what one search reads (``passages`` of 30 entries,
``vectors`` of 30 others).

    python -m bench.ledger [--runs 3]

Each run prints entries written per second and the p50 / p95 of one search's reads.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from service.domain.entries import Chunk, Entry, StoredEntry
from service.domain.ports import Ledger
from service.stores.durable import open_postgres, open_sqlite
from service.testing.engines import TemporaryPostgres, find_binaries

BATCH = 500
DIMENSION = 384


def stored(n: int, tier: str) -> StoredEntry:
    entry = Entry(
        id=f"e{n}",
        namespace="ns",
        tier=tier,  # type: ignore[arg-type]
        text=f"event number {n} happened " * 4,
        timestamp=1.7e9 + n,
        tags=("a",),
        metadata={"n": n},
    )
    vector = tuple(float(x % 7) / 7 for x in range(DIMENSION)) if tier != "E" else None
    return StoredEntry(entry, (Chunk(entry.key, 0, entry.text, vector),), 20)


def measure(ledger: Ledger, label: str) -> None:
    started = time.perf_counter()
    for b in range(20):
        ledger.put([stored(b * BATCH + i, "E") for i in range(BATCH)], actor="bench")
    put_e = 20 * BATCH / (time.perf_counter() - started)
    started = time.perf_counter()
    for b in range(4):
        ledger.put([stored(100_000 + b * BATCH + i, "A") for i in range(BATCH)], actor="bench")
    put_a = 4 * BATCH / (time.perf_counter() - started)
    logs = [f"ns:e{i}" for i in range(0, 10_000, 333)][:30]
    decisions = [f"ns:e{100_000 + i}" for i in range(0, 2_000, 67)][:30]
    took = []
    for _ in range(300):
        started = time.perf_counter()
        ledger.passages(logs)
        ledger.vectors(decisions)
        took.append((time.perf_counter() - started) * 1000)
    took.sort()
    print(
        f"{label}: put E {put_e:.0f}/s, put A {put_a:.0f}/s, "
        f"passages+vectors(30+30) p50 {took[150]:.2f} ms p95 {took[285]:.2f} ms",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    binaries = find_binaries()
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as scratch:
            stores = open_sqlite(Path(scratch))
            measure(stores.ledger, "sqlite")
            stores.close()
        if binaries is None:
            print("postgres: not installed, skipped")
            continue
        server = TemporaryPostgres(binaries, durable=True)
        try:
            stores = open_postgres(server.start())
            measure(stores.ledger, "postgres")
            stores.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
