"""Digests of archived tier E entries: what they cost in rows and bytes, and how often they
bring back old log evidence.

    python -m bench.digests size [--entries 100000] [--namespaces 4] [--seed 7]
    python -m bench.digests recall [DATASET] [--limit 10]

``size`` writes the load benchmark's mixed workload (``bench.load.workload``: 2 % tier A,
8 % tier C, 90 % tier E over 30 days) straight through ``Memory`` into a SQLite ledger and
a Tantivy index in a temporary directory, without an embedding model (tier A and C entries
are kept without vectors: archiving tier E moves no vector). It prints rows, ledger bytes
(SQLite pages in use) and Tantivy bytes (after a merge) three times: as written, after
``archive_e_tier`` archived every tier E entry and wrote the digests, and after
``STRATA_E_DELETE_DAYS`` deleted the originals.

``recall`` loads a BEIR-format set (default: locomo-tiers-dev) with the service's
defaults, archives every tier E entry with its digests, then asks each question whose
evidence includes a tier E turn twice, 10 results each: as by default (digests, no
archived original) and with ``include_archived`` (the originals). It prints how often the
top 10 holds a digest quoting an evidence turn, a digest of an evidence turn's day and
thread, or (with ``include_archived``) an evidence turn itself; and how many evidence turns
the digests quote, with the line choice of ``service.domain.aging.digests`` and with the first
lines of each group. It then deletes the originals (as ``STRATA_E_DELETE_DAYS`` does) and
asks the default searches again. For each round of default searches it prints their
latency (median and 95th percentile, one search at a time) and searches per second.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.common import machine_info
from service.domain.aging.digests import MAX_LINES, build_day, digest_id, group_of
from service.domain.aging.tiers import DAY
from service.domain.entries import DIGEST, Entry, StoredEntry, Tier
from service.domain.model import Filters, Hit
from service.settings import ChunkingSettings

if TYPE_CHECKING:
    from service.domain.memory import Memory
    from service.domain.ports import Ledger

LOCOMO = Path(__file__).resolve().parents[1].parent / "shared/datasets/locomo-tiers-dev"
BATCH = 2000


class NoVectors:
    """A vector store that holds nothing: the size benchmark runs without a model."""

    def upsert(self, stored: Sequence[StoredEntry]) -> None:
        return None

    def delete(self, keys: Sequence[str]) -> None:
        return None

    def search(
        self, tier: Tier, vector: Sequence[float], filters: Filters, limit: int
    ) -> list[Hit]:
        return []

    def count(self, tier: Tier) -> int:
        return 0

    def entry_keys(self) -> set[str]:
        return set()

    def delete_expired(self, now: float) -> None:
        return None

    def clear(self) -> None:
        return None

    def erase_namespace(self, namespace: str) -> None:
        return None

    def health(self) -> str:
        return "ok"


# --------------------------------------------------------------------------- size


def _parts(memory: Memory, ledger: Ledger) -> dict[str, Any]:
    """What ``archive_e_tier`` is given, as the scheduler gives it."""
    return {
        "inventory": ledger,
        "entries": ledger,
        "writer": memory.writer,
        "lifecycle": memory.lifecycle,
    }


def _ledger_bytes(path: Path) -> tuple[int, int]:
    """Bytes of the SQLite pages in use by the entries (and their chunks), and by their
    history and the change log, indexes included, after a WAL checkpoint."""
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        table_of = dict(conn.execute("SELECT name, tbl_name FROM sqlite_master"))
        used = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    entries = logs = 0
    for name, size in used:
        table = table_of.get(name, name)
        if table in ("entries", "chunks"):
            entries += size
        elif table in ("history", "changes"):
            logs += size
    return entries, logs


def _tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _rows(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        found = conn.execute(
            "SELECT tier, kind, archived, count(*) FROM entries GROUP BY tier, kind, archived"
        ).fetchall()
    rows: Counter[str] = Counter()
    for tier, kind, archived, n in found:
        label = "digests" if kind == DIGEST else f"{tier}{' archived' if archived else ''}"
        rows[label] += n
    return dict(rows)


def size(args: argparse.Namespace) -> None:
    import msgspec

    from bench.load.workload import Workload
    from schemas import wire
    from service.application.inputs import to_entries
    from service.application.upkeep import archive_e_tier, optimize_indexes
    from service.domain.aging.tiers import ExpiryPolicy
    from service.domain.memory import Indexes, Memory, Preparer
    from service.stores.durable import LEDGER, open_sqlite
    from service.stores.tantivy import TantivyKeywordStore

    now = time.time()
    workload = Workload(args.entries, args.seed, args.namespaces, 30.0, "digests", now)
    chunking, policy = ChunkingSettings(), ExpiryPolicy(workload.c_ttl_days, {})
    with tempfile.TemporaryDirectory(prefix="strata-digests-") as scratch:
        data = Path(scratch)
        stores = open_sqlite(data)
        keywords = TantivyKeywordStore(data / "tantivy")
        clock = [now]
        indexes = Indexes(
            stores.ledger, stores.ledger, NoVectors(), keywords, clock=lambda: clock[0]
        )
        memory = Memory.over(stores.ledger, indexes, Preparer(None, chunking))
        started = time.perf_counter()
        batch: list[dict[str, Any]] = []

        def flush() -> None:
            events = [msgspec.convert(e, wire.Event) for e in batch]
            memory.writer.write(
                to_entries(
                    events,
                    now=now,
                    new_id=lambda: "",
                    policy=policy,
                    namespace=lambda given, _: given or "default",
                    chunking=chunking,
                )
            )
            batch.clear()

        for event in workload.events():
            batch.append(event)
            if len(batch) >= BATCH:
                flush()
        if batch:
            flush()
        info = machine_info()
        print(
            f"workload: {args.entries} entries, {args.namespaces} namespaces, 30 days, "
            f"seed {args.seed}; written in {time.perf_counter() - started:.0f} s; "
            f"machine: {info['platform']}, {info['cpu_count']} CPUs"
        )

        def measure(label: str, result: dict[str, Any] | None, seconds: float | None) -> None:
            optimize_indexes(memory.lifecycle)
            rows = _rows(data / LEDGER)
            entries, logs = _ledger_bytes(data / LEDGER)
            tantivy = _tree_bytes(data / "tantivy")
            took = f"{seconds:.0f}" if seconds is not None else ""
            counts = ", ".join(f"{k} {v}" for k, v in sorted(rows.items()))
            print(
                f"| {label} | {sum(rows.values())} | {counts} | {entries / 1e6:.1f} | "
                f"{logs / 1e6:.1f} | {tantivy / 1e6:.1f} | {took} | {result or ''} |",
                flush=True,
            )

        print(
            "| state | rows | rows by tier | ledger MB: entries | ledger MB: history, changes "
            "| Tantivy MB | job s | job result |"
        )
        print("|---|---:|---|---:|---:|---:|---:|---|")
        measure("as written", None, None)
        # The job runs 31 days after the newest entry: every tier E entry is past
        # STRATA_E_ARCHIVE_DAYS (30).
        clock[0] = later = now + 31 * DAY
        started = time.perf_counter()
        archived = archive_e_tier(later, 30, 0, **_parts(memory, stores.ledger))
        measure("archived, with digests", archived, time.perf_counter() - started)
        started = time.perf_counter()
        deleted = archive_e_tier(later, 30, 30, **_parts(memory, stores.ledger))
        seconds = time.perf_counter() - started
        measure("originals deleted (STRATA_E_DELETE_DAYS=30)", deleted, seconds)
        started = time.perf_counter()
        memory.repair.rebuild()
        measure("Tantivy rebuilt from the ledger", None, time.perf_counter() - started)
        lengths = sorted(
            len(s.entry.text)
            for scanned in stores.ledger.scan()
            for s in scanned
            if s.entry.kind == DIGEST
        )
        if lengths:
            print(
                f"digests: {len(lengths)}, text characters: median "
                f"{lengths[len(lengths) // 2]}, largest {lengths[-1]}"
            )
        keywords.close()
        stores.close()


# --------------------------------------------------------------------------- recall


def _first_lines(entries: list[Entry]) -> set[str]:
    """The keys a digest would quote if it took each group's first lines."""
    groups: dict[Any, list[Entry]] = {}
    for e in sorted(entries, key=lambda e: (e.timestamp, e.id)):
        groups.setdefault(group_of(e), []).append(e)
    return {e.key for members in groups.values() for e in members[:MAX_LINES]}


def recall(args: argparse.Namespace) -> None:
    import os

    from schemas import wire
    from service.application.auth import OPEN
    from service.application.upkeep import archive_e_tier
    from service.evaluation.beir import namespace_for
    from service.evaluation.workbench import PREFIX, Workbench
    from service.settings import Settings

    started = time.perf_counter()
    with Workbench.load(Settings.from_env(os.environ), args.dataset) as bench:
        runtime = bench.runtime
        loaded = time.perf_counter() - started
        started = time.perf_counter()
        # The set's youngest tier E turn is 7.3 days old: 23 days later every one of them
        # is past STRATA_E_ARCHIVE_DAYS (30) and archived.
        result = archive_e_tier(
            time.time() + 23 * DAY, 30, 0, **_parts(runtime.memory, runtime.stores.ledger)
        )
        job = time.perf_counter() - started
        logs = [
            s.entry
            for scanned in runtime.stores.ledger.scan()
            for s in scanned
            if s.entry.tier == "E" and s.entry.kind != DIGEST
        ]
        evidence_of = {bench.source[(e.namespace, e.id)]: e for e in logs}
        by_day: dict[tuple[str, str], list[Entry]] = {}
        for e in logs:
            by_day.setdefault((e.namespace, group_of(e).day), []).append(e)
        chosen = {
            f"{namespace}:{source}"
            for (namespace, _), entries in by_day.items()
            for digest in build_day(entries).values()
            for source in digest.metadata["digest"]["sources"]
        }
        first = {key for entries in by_day.values() for key in _first_lines(entries)}
        asked = originals = 0
        turns: set[str] = set()
        questions: list[tuple[str, str, set[str], set[str]]] = []
        for query in bench.queries:
            evidence = [
                evidence_of[doc]
                for doc, r in bench.qrels[query.id].items()
                if r > 0 and doc in evidence_of
            ]
            if not evidence:
                continue
            asked += 1
            turns.update(e.key for e in evidence)
            namespace = namespace_for(PREFIX, query.namespace)
            ids = {e.id for e in evidence}
            groups = {digest_id(group_of(e)) for e in evidence}
            questions.append((query.text, namespace, ids, groups))
            archived = wire.SearchRequest(
                query=query.text, namespace=namespace, limit=args.limit, include_archived=True
            )
            hits = runtime.services.search.search(OPEN, archived).outcome.results
            originals += any(h.entry.id in ids for h in hits)

        def by_digests() -> tuple[int, int, list[float]]:
            """Default searches: questions whose top holds a digest quoting an evidence
            turn, those whose top holds the digest of an evidence turn's group, and each
            search's seconds."""
            quoted = covered = 0
            took: list[float] = []
            for text, namespace, ids, groups in questions:
                default = wire.SearchRequest(query=text, namespace=namespace, limit=args.limit)
                began = time.perf_counter()
                results = runtime.services.search.search(OPEN, default).outcome.results
                took.append(time.perf_counter() - began)
                digests = [h.entry for h in results if h.entry.kind == DIGEST]
                quoted += any(ids & set(d.metadata["digest"]["sources"]) for d in digests)
                covered += any(d.id in groups for d in digests)
            return quoted, covered, took

        quoted, covered, took = by_digests()
        deleted = archive_e_tier(
            time.time() + 23 * DAY, 30, 7, **_parts(runtime.memory, runtime.stores.ledger)
        )["deleted"]
        quoted_after, covered_after, took_after = by_digests()
        print(
            f"{args.dataset.name}: loaded in {loaded:.0f} s; archive_e_tier {result} "
            f"in {job:.1f} s; questions whose evidence includes a tier E turn: {asked}"
        )
        print(f"| top {args.limit} holds | share of those questions |")
        print("|---|---:|")
        print(f"| a digest quoting an evidence turn (default search) | {quoted / asked:.3f} |")
        print(
            f"| the digest of an evidence turn's day and group (default search) | "
            f"{covered / asked:.3f} |"
        )
        print(f"| an evidence turn itself (`include_archived`) | {originals / asked:.3f} |")
        print(
            f"| a digest quoting an evidence turn, originals deleted ({deleted}) | "
            f"{quoted_after / asked:.3f} |"
        )
        print(
            f"| the digest of an evidence turn's day and group, originals deleted | "
            f"{covered_after / asked:.3f} |"
        )
        print(
            f"evidence turns quoted by their digest: {len(turns & chosen)} of {len(turns)} "
            f"(first {MAX_LINES} lines of each group instead: {len(turns & first)})"
        )
        for label, seconds in (("archived", took), ("originals deleted", took_after)):
            print(f"default searches, {label}: {_latency(seconds)}")


def _latency(seconds: Sequence[float]) -> str:
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (
        f"{len(ordered)} one at a time, median {statistics.median(ordered) * 1000:.1f} ms, "
        f"p95 {p95 * 1000:.1f} ms, {len(ordered) / sum(ordered):.1f} searches/s"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True)
    sized = commands.add_parser("size", help="rows and bytes before and after archiving")
    sized.add_argument("--entries", type=int, default=100_000)
    sized.add_argument("--namespaces", type=int, default=4)
    sized.add_argument("--seed", type=int, default=7)
    found = commands.add_parser("recall", help="old log evidence found through digests")
    found.add_argument("dataset", type=Path, nargs="?", default=LOCOMO)
    found.add_argument("--limit", type=int, default=10)
    args = parser.parse_args(argv)
    size(args) if args.command == "size" else recall(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
