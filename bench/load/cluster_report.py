"""The markdown report of a cluster run (``python -m bench.load --cluster``)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from bench.common import machine_info
from bench.load.cluster import setup_rows
from bench.load.report import _mb, _ms, _rate


def report_cluster(runs: Sequence[Mapping[str, Any]], args: argparse.Namespace) -> str:
    info = machine_info()
    day = datetime.now(UTC).date().isoformat()
    lines = [f"## Cluster ({day}, {info['platform']}, {info['cpu_count']} CPUs)", ""]
    for run in runs:
        lines += [*report_cluster_size(run, args), ""]
    return "\n".join(lines)


def report_cluster_size(run: Mapping[str, Any], args: argparse.Namespace) -> list[str]:
    sqlite, pg, two = run["sqlite"], run["postgres"], run["postgres_x2"]
    counts = {t: v["events"] for t, v in sqlite["ingest"]["tiers"].items()}
    out = [
        f"### {run['entries']} entries",
        "",
        f"A {counts['A']}, C {counts['C']}, E {counts['E']}; {args.namespaces} namespaces; "
        f"seed {args.seed}; service at {run['service_commit']}; PostgreSQL "
        f"{run['postgres_version']} (fsync and synchronous commits on, as SQLite's "
        "`synchronous=FULL`); one `chroma run` server per setup; every process on this "
        "machine, the load client too. Load average (1 min) "
        f"{run['load_average']['start'][0]:.1f} at the start, "
        f"{run['load_average']['end'][0]:.1f} at the end.",
        "",
        *_ingest_table(sqlite, pg, args),
        "",
        *_search_table(run, args),
        "",
        *_lag_table(two["lag"]),
        "",
        " ".join(_notes(run)),
    ]
    return out


def _ingest_table(
    sqlite: Mapping[str, Any], pg: Mapping[str, Any], args: argparse.Namespace
) -> list[str]:
    out = [
        f"Ingest into one replica, `POST /v1/events` in batches of {args.batch} events of one "
        "tier, each batch to the SQLite setup and to the Postgres one in turn (events/s "
        "inside requests; short events, one sentence each, half A and half C, after the "
        "searches):",
        "",
        "| ledger | A events/s | C events/s | E events/s | all events/s | short A/s | short C/s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, setup in (("SQLite", sqlite), ("Postgres", pg)):
        tiers = setup["ingest"]["tiers"]
        short = (setup.get("short_ingest") or {}).get("tiers", {})
        out.append(
            f"| {name} | "
            + " | ".join(_rate(tiers[t]["events_per_s"]) for t in ("A", "C", "E"))
            + f" | {_rate(setup['ingest']['events_per_s'])} | "
            + " | ".join(_rate(short.get(t, {}).get("events_per_s")) for t in ("A", "C"))
            + " |"
        )
    return out


def _search_table(run: Mapping[str, Any], args: argparse.Namespace) -> list[str]:
    out = [
        f"Search, `POST /v1/search`, `limit` {args.limit}, {args.queries} queries per cell, "
        "client-side latency over loopback; the two one-replica setups take turns cell by "
        "cell on the same queries, two replicas get others; no query text is sent twice to "
        "a replica. CPU "
        "is user + system time per search of each server's processes (strata: the "
        "replicas together):",
        "",
        "| setup | mode | conc. | p50 ms | p95 ms | searches/s | strata CPU ms "
        "| Postgres CPU ms | Chroma CPU ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, cells in setup_rows(run):
        for s in cells:
            cpu = s.get("cpu_ms_per_search") or {}
            errors = f" ({s['errors']} errors)" if s["errors"] else ""
            out.append(
                f"| {label} | {s['mode']}{errors} | {s['concurrency']} | {_ms(s['p50_ms'])} "
                f"| {_ms(s['p95_ms'])} | {_rate(s['searches_per_s'])} "
                f"| {_ms(cpu.get('strata'))} | {_ms(cpu.get('postgres'))} "
                f"| {_ms(cpu.get('chroma'))} |"
            )
    return out


def _lag_table(lag: Mapping[str, Any]) -> list[str]:
    bg = lag["background"]
    out = [
        "Replication lag, Postgres, two replicas: a tier E event written to r1 (after a "
        "random pause of up to 0.5 s), from its 201 to r2's BM25 search finding it (polled "
        "every 5 ms; r2 reads the change log every 200 ms). Under ingest, another client "
        "sent r1 batches of 200 events (one in five "
        f"tier A) at {_rate(bg['events_per_s'])} events/s meanwhile:",
        "",
        "| when | probes | p50 ms | p95 ms | max ms | lost |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, key in (("idle", "idle"), ("under ingest", "under_ingest")):
        s = lag[key]
        out.append(
            f"| {label} | {s['probes']} | {_ms(_s_to_ms(s['p50_s']))} "
            f"| {_ms(_s_to_ms(s['p95_s']))} | {_ms(_s_to_ms(s['max_s']))} | {s['lost']} |"
        )
    follow = lag.get("follow")
    if follow:
        out += [
            "",
            f"Over {follow['events']:.0f} events of that ingest, with no search meanwhile, "
            f"r1 spent {follow['writer_cpu_ms_per_event']:.2f} ms of CPU per event taking "
            f"it and r2 {follow['reader_cpu_ms_per_event']:.2f} ms applying it from the "
            "change log.",
        ]
    return out


def _s_to_ms(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value * 1000


def _notes(run: Mapping[str, Any]) -> list[str]:
    sqlite, pg, two = run["sqlite"], run["postgres"], run["postgres_x2"]
    entries = run["entries"]
    tantivy = two["tantivy_bytes"]
    per_million = (tantivy.get("r2") or 0) * 1_000_000 / entries
    rss = {name: (m or {}).get("rss") for name, m in two["memory"].items()}
    return [
        f"The second replica answered `/health` {two['second_start_seconds']:.1f} s after it "
        f"started with an empty data directory (model load and its keyword index rebuilt "
        f"from Postgres, {entries} entries, nothing embedded).",
        f"Tantivy per replica: r1 {_mb(tantivy.get('r1'))} (written as ingested), "
        f"r2 {_mb(tantivy.get('r2'))} (rebuilt), {_mb(int(per_million))} per million "
        "entries extrapolated from r2.",
        f"Ledger: SQLite files {_mb(sqlite.get('ledger_bytes'))}, Postgres database "
        f"{_mb(pg.get('ledger_bytes'))}; Chroma server data {_mb(pg.get('chroma_bytes'))}.",
        "RSS after the searches: "
        + ", ".join(f"{name} {_mb(v)}" for name, v in rss.items())
        + f" (one process on SQLite: {_mb((sqlite.get('memory') or {}).get('rss'))}).",
        f"`expire_c_tier` by hand after ingest: SQLite {sqlite['expire_seconds']:.1f} s, "
        f"Postgres {pg['expire_seconds']:.1f} s.",
    ]
