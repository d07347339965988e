"""The report of a load run: markdown tables per corpus size and a latency plot."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.common import machine_info, pyplot


def _number(value: float | None, whole_from: float) -> str:
    """One decimal below ``whole_from``, none from there on; ``n/a`` when there is no figure."""
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:.1f}" if value < whole_from else f"{value:.0f}"


def _ms(value: float | None) -> str:
    return _number(value, 1000)


def _rate(value: float | None) -> str:
    return _number(value, 100)


def _mb(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 1e6:.1f} MB"


def _fraction(value: float | None) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.2f}"


def model_tokens(cell: Mapping[str, Any]) -> float | None:
    """Query and passage tokens embedded per search in a cell; None when not counted."""
    query, passage = cell.get("query_tokens_per_search"), cell.get("passage_tokens_per_search")
    return None if query is None or passage is None else query + passage


def _ratio(a: float, b: float) -> str:
    if not (math.isfinite(a) and math.isfinite(b)) or b <= 0:
        return "n/a"
    return f"{a / b:.2f}x"


def report(runs: Sequence[Mapping[str, Any]], args: argparse.Namespace) -> str:
    """The markdown of a whole run: each corpus size, then p50 against size when several."""
    lines = ["## Load (bench.load)", ""]
    for run in runs:
        lines += [*report_size(run, args), ""]
    if len(runs) > 1:
        lines += [*report_sizes(runs), ""]
    return "\n".join(lines)


def report_size(run: Mapping[str, Any], args: argparse.Namespace) -> list[str]:
    """One corpus size: the workload, ingest, notes, the service's cells and the peers'."""
    svc = run["service"]
    counts = run["counts"]
    info = machine_info()
    out = [
        f"### {run['entries']} entries",
        "",
        f"A {counts['A']}, C {counts['C']}, E {counts['E']}; {args.namespaces} namespaces; "
        f"seed {args.seed}; timestamps over {args.days:g} days; "
        + (f"service at {run['service_commit']}; " if run.get("service_commit") else "")
        + f"{info['platform']}, "
        f"{info['cpu_count']} CPUs.",
        "",
    ]
    out += _ingest_table(svc["ingest"], args)
    out += [" ".join(_notes(svc, args)), ""]
    out += _search_table(svc, args)
    if peers := run.get("peers"):
        out += _peers_table(peers, svc, args)
    return out


def _ingest_table(ing: Mapping[str, Any], args: argparse.Namespace) -> list[str]:
    if ing.get("skipped"):
        return []
    out = [
        f"Ingest, `POST /v1/events` in batches of {args.batch} events of one tier "
        "(time inside requests):",
        "",
        "| tier | events | batches | seconds | events/s |",
        "|---|---:|---:|---:|---:|",
    ]
    for tier, t in ing["tiers"].items():
        out.append(
            f"| {tier} | {t['events']} | {t['batches']} | {t['seconds']:.1f} "
            f"| {_rate(t['events_per_s'])} |"
        )
    out.append(
        f"| all | {ing['events']} | {sum(t['batches'] for t in ing['tiers'].values())} "
        f"| {ing['request_seconds']:.1f} | {_rate(ing['events_per_s'])} |"
    )
    out.append("")
    return out


def _notes(svc: Mapping[str, Any], args: argparse.Namespace) -> list[str]:
    """Sentences on ingest wall time, short events, expiry, memory, disk and the reranker."""
    ing = svc["ingest"]
    notes = []
    if ing.get("skipped"):
        notes.append("Not ingested: the service already held this workload (`--no-ingest`).")
    else:
        notes.append(
            f"Wall time including generation {ing['wall_seconds']:.1f} s "
            f"({_rate(ing['wall_events_per_s'])} events/s)."
        )
    if short := svc.get("short_ingest"):
        notes.append(
            "Short events (one sentence each, after the searches): "
            + ", ".join(
                f"tier {tier} {t['events']} of {t['mean_words']:.0f} words on average at "
                f"{_rate(t['events_per_s'])} events/s"
                for tier, t in short["tiers"].items()
            )
            + "."
        )
    if svc.get("expire_job"):
        job = svc["expire_job"]
        archived = job["result"].get("archived", "?")
        notes.append(
            f"`expire_c_tier` then archived {archived} tier C entries in {job['seconds']:.1f} s."
        )
    mem = svc["memory"]
    rss = [
        (label, (mem.get(key) or {}).get("rss"))
        for label, key in (
            ("at start", "start"),
            ("after ingest", "after_ingest"),
            *((f"after {m}", f"after {m}") for m in args.modes),
        )
    ]
    peak = (mem.get("after_search") or {}).get("peak_rss")
    if any(v is not None for _, v in rss):
        notes.append(
            "Service RSS: "
            + ", ".join(f"{_mb(v)} {label}" for label, v in rss)
            + f"; peak {_mb(peak)}."
        )
    disk = (svc.get("stats") or {}).get("disk_bytes") or {}
    parts = ", ".join(f"{k} {_mb(v)}" for k, v in disk.items() if v is not None)
    notes.append(f"Data directory on disk: {_mb(svc.get('disk_bytes'))} ({parts}).")
    if svc.get("reranker_note"):
        notes.append(f"Reranker: {svc['reranker_note']}.")
    return notes


def _search_table(svc: Mapping[str, Any], args: argparse.Namespace) -> list[str]:
    out = [
        f"Search, `POST /v1/search`, `limit` {args.limit}, {args.queries} queries per cell "
        f"(at most {args.max_seconds:g} s), client-side latency over loopback HTTP; no query "
        "text is sent twice in a run, so the service's query caches never hit (passage "
        "vectors kept between searches do). CPU is the service process's and its children's "
        "over the cell; model calls and tokens (queries and passages embedded at read time) "
        "come from `/v1/stats` before and after it. Mode `default` sends no mode: auto over "
        "every tier, as an agent asks:",
        "",
        "| mode | conc. | searches | p50 ms | p95 ms | p99 ms | searches/s "
        "| server p50 ms | hits | CPU ms/search | model calls/search | model tokens/search |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in svc["search"]:
        flag = " (degraded)" if s["degraded"] else ""
        errors = f" ({s['errors']} errors)" if s["errors"] else ""
        out.append(
            f"| {s['mode']}{flag} | {s['concurrency']} | {s['queries']}{errors} "
            f"| {_ms(s['p50_ms'])} | {_ms(s['p95_ms'])} | {_ms(s['p99_ms'])} "
            f"| {_rate(s['searches_per_s'])} "
            f"| {_ms(s['server_took_p50_ms'])} | {s['hits_mean']:.1f} "
            f"| {_ms(s.get('cpu_ms_per_search'))} | {_fraction(s.get('model_calls_per_search'))} "
            f"| {_rate(model_tokens(s))} |"
        )
    relaxed = [
        f"{s['mode']} c={s['concurrency']} {s['relaxed_share']:.0%}"
        for s in svc["search"]
        if s.get("relaxed_share")
    ]
    if relaxed:
        out += ["", "Searches answered by the relaxed retry (all tiers): " + ", ".join(relaxed)]
    reasons = sorted({r for s in svc["search"] for r in s["degraded"]})
    if reasons:
        out += ["", "Degraded: " + "; ".join(r.splitlines()[0][:200] for r in reasons)]
    return out


def _peers_table(
    peers: Mapping[str, Any], svc: Mapping[str, Any], args: argparse.Namespace
) -> list[str]:
    b = peers["build"]
    secs = ", ".join(f"{k} {v:.1f} s" for k, v in b["seconds"].items())
    out = [
        "",
        f"Peers on the same entries, in-process, no HTTP ({b['docs']} documents, "
        f"{b['vectors']} vectors of live tier A/C entries, {peers['model']}; build {secs}). "
        "Each peer runs the queries of the service cell it is compared with. Every vector "
        "and hybrid figure, the service's and the peers', includes embedding the query. "
        "Ratios are service / peer at the same concurrency: above 1x the service is "
        "slower (p50) or faster (searches/s). Overlap is the share of top-"
        f"{args.limit} ids the service also returned (c=1); the service also weighs "
        "tiers and tier C recency, so it is not expected to be 1.",
        "",
        "| peer | vs mode | conc. | searches | p50 ms | p95 ms | p99 ms | searches/s "
        "| service/peer p50 | service/peer searches/s | overlap |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    by_cell = {(s["mode"], s["concurrency"]): s for s in svc["search"]}
    for p in peers["search"]:
        ours = by_cell.get((p["like"], p["concurrency"]))
        p50r = _ratio(ours["p50_ms"], p["p50_ms"]) if ours else "n/a"
        qpsr = _ratio(ours["searches_per_s"], p["searches_per_s"]) if ours else "n/a"
        ov = p.get("overlap")
        errors = f" ({p['errors']} errors)" if p["errors"] else ""
        out.append(
            f"| {p['system']} | {p['like']} | {p['concurrency']} | {p['queries']}{errors} "
            f"| {_ms(p['p50_ms'])} | {_ms(p['p95_ms'])} | {_ms(p['p99_ms'])} "
            f"| {_rate(p['searches_per_s'])} | {p50r} | {qpsr} "
            f"| {'' if ov is None or not math.isfinite(ov) else f'{ov:.2f}'} |"
        )
    sizes = ", ".join(f"{k} {_mb(v)}" for k, v in peers["disk_bytes"].items())
    if sizes:
        out += ["", f"Peer sizes: {sizes}."]
    return out


def report_sizes(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    """p50 at concurrency 1 per system and corpus size, when there are several sizes."""
    series = latency_series(runs, "p50_ms")
    names = list(series)
    out = [
        "### p50 ms at concurrency 1 by corpus size",
        "",
        "| entries | " + " | ".join(names) + " |",
        "|---:|" + "---:|" * len(names),
    ]
    for i, run in enumerate(runs):
        out.append(f"| {run['entries']} | " + " | ".join(_ms(series[n][i]) for n in names) + " |")
    return out


def latency_series(runs: Sequence[Mapping[str, Any]], key: str) -> dict[str, list[float]]:
    """``key`` at concurrency 1 per system (service modes and peers), one value per run."""
    series: dict[str, list[float]] = {}
    for i, run in enumerate(runs):
        cells = [("service " + s["mode"], s) for s in run["service"]["search"]]
        cells += [(s["system"], s) for s in (run.get("peers") or {}).get("search", [])]
        for name, s in cells:
            if s["concurrency"] == 1:
                series.setdefault(name, [float("nan")] * len(runs))[i] = s[key]
    return series


def plot(runs: Sequence[Mapping[str, Any]], out: Path) -> None:
    plt = pyplot()
    if plt is None:
        return
    sizes = [run["entries"] for run in runs]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
    for ax, key in zip(axes, ("p50_ms", "p95_ms"), strict=True):
        for name, values in latency_series(runs, key).items():
            style = "-o" if name.startswith("service") else "--s"
            ax.plot(sizes, values, style, label=name, markersize=5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("entries")
        ax.set_ylabel(f"{key.split('_')[0]} latency, ms (concurrency 1)")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle("strata search latency against corpus size (bench.load)")
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    fig.savefig(out, dpi=120)
    plt.close(fig)
    print(f"wrote {out}", file=sys.stderr)
