"""What the ``strata`` commands print: wire responses as text, markdown, CSV or JSON, and
the progress bar. Each renderer returns the whole text, every line newline-terminated,
for a command to write as is."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Iterable
from typing import Any

import msgspec

from schemas import wire

BAR_WIDTH = 30
NOTHING_RELEVANT = "nothing relevant in memory"


def as_json(value: Any) -> str:
    """``value`` (wire structs, or plain data holding them) as indented JSON, in the
    fields and order the service sent."""
    return json.dumps(msgspec.to_builtins(value), indent=2, ensure_ascii=False) + "\n"


def search_text(found: wire.SearchResponse) -> str:
    """Two lines a hit: score, tier and where it is, then its snippet; without hits, that
    nothing is relevant."""
    if not found.results:
        return _joined([nothing_relevant(found)])
    lines = []
    for hit in found.results:
        flag = " (archived)" if hit.archived else ""
        if hit.superseded_by:
            flag += f" (superseded by {hit.superseded_by})"
        lines.append(f"{hit.score:.3f}  {hit.tier}  {_where(hit)}{flag}")
        lines.append(f"       {hit.snippet}")
    return _joined(lines)


def search_md(found: wire.SearchResponse) -> str:
    """A markdown table of the hits; without hits, that nothing is relevant."""
    if not found.results:
        return _joined([f"*{nothing_relevant(found)}*"])
    lines = ["| score | tier | id | snippet |", "|---:|---|---|---|"]
    for hit in found.results:
        snippet = (hit.snippet or "").replace("|", "\\|").replace("\n", " ")
        where = hit.id if hit.upstream is None else _where(hit)
        lines.append(f"| {hit.score:.3f} | {hit.tier} | {where} | {snippet} |")
    return _joined(lines)


def search_csv(found: wire.SearchResponse) -> str:
    """CSV with a header row, one row a hit."""
    out = io.StringIO()
    rows = csv.writer(out)
    rows.writerow(["score", "tier", "id", "namespace", "timestamp", "snippet"])
    for hit in found.results:
        rows.writerow([hit.score, hit.tier, hit.id, hit.namespace, hit.timestamp, hit.snippet])
    return out.getvalue()


def search_json(found: wire.SearchResponse) -> str:
    return as_json(found)


SEARCH_FORMATS = {"text": search_text, "md": search_md, "csv": search_csv, "json": search_json}
"""Renderers of a search by the format flag that picks them."""


def nothing_relevant(found: wire.SearchResponse) -> str:
    """What a search without hits says: nothing relevant, and how many weak hits the
    relevance floor left out."""
    if not found.dropped:
        return NOTHING_RELEVANT
    hits = "hit" if found.dropped == 1 else "hits"
    return (
        f"{NOTHING_RELEVANT} ({found.dropped} {hits} below the relevance floor; "
        "--min-score 0 shows them)"
    )


def retrieve_text(found: wire.RetrieveResponse) -> str:
    """The verdict, then each entry (or that nothing is relevant) and reasoning pattern
    with its variants."""
    verdict = "strong match" if found.strong_match else "no strong match"
    judge = (
        f"as reference {found.reference_id} says"
        if found.reference_id
        else f"threshold {found.threshold:.2f}"
    )
    lines = [
        f"{verdict} (confidence {found.answer_confidence:.2f}, {judge}); "
        f"interaction {found.interaction_id}"
    ]
    for entry in found.entries:
        lines.append(
            f"{entry.score:.3f}  rel {entry.relevance_score:.3f}  {entry.tier}  {_where(entry)}"
        )
        lines.append(f"       {entry.snippet}")
        lines.extend(
            f"       replaces {old.id} ({old.at}): {old.text or ''}" for old in entry.supersedes
        )
    if not found.entries:
        lines.append(NOTHING_RELEVANT)
    for pattern in found.reasoning_patterns:
        lines.append(f"pattern {pattern.id}: {pattern.text}")
        lines.extend(f"       - {variant}" for variant in pattern.variants)
    return _joined(lines)


def nothing_fits(made: wire.ContextResponse) -> str:
    """What an empty block says (for stderr): that no entry fit the budget, which it left
    out, and what to do."""
    return _joined(
        [
            f"strata: no relevant entry fits in {made.max_tokens} tokens "
            f"({len(made.left_out)} left out for room); give a larger --max-tokens"
        ]
    )


def empty_namespace(namespace: str, held: list[str]) -> str:
    """That the namespace searched holds nothing, and which ones do (for stderr)."""
    others = ", ".join(held) if held else "none"
    return _joined([f"strata: namespace {namespace!r} holds no entries; namespaces: {others}"])


def context_footer(made: wire.ContextResponse) -> str:
    """The block's size and interaction, and what the budget left out (for stderr)."""
    lines = [f"{made.tokens}/{made.max_tokens} tokens; interaction {made.interaction_id}"]
    if made.left_out:
        lines.append(f"left out for room: {', '.join(made.left_out)}")
    return _joined(lines)


def written_text(found: wire.EventsResponse) -> str:
    """What became of a write's events, beyond their ids (for stderr): repeats stored once,
    entries replaced, similar entries a revision might replace."""
    lines = []
    for outcome in found.written:
        if outcome.duplicate_of:
            lines.append(f"{outcome.id}: already stored (duplicate_of); nothing new written")
        lines.extend(f"{outcome.id}: supersedes {old}" for old in outcome.supersedes)
        lines.extend(
            f"{outcome.id}: similar to {s.id} (tier {s.tier}, cosine {s.similarity:.2f}); "
            f"if it replaces it: strata add ... --supersedes {s.id}"
            for s in outcome.similar
        )
    return _joined(lines)


def degraded_text(reasons: Iterable[str]) -> str:
    """Why a response is degraded, a line a reason (for stderr)."""
    return _joined(f"degraded: {reason}" for reason in reasons)


def documents_text(found: wire.DocumentsResponse) -> str:
    """Each document under a ``==> path <==`` header, followed by a blank line."""
    return "".join(f"==> {doc.path} <==\n{doc.text}\n\n" for doc in found.documents)


def skipped_text(found: wire.DocumentsResponse | wire.ScanOut) -> str:
    """The documents, or a scan's files, left out and why (for stderr)."""
    return _joined(f"skipped {s.path}: {s.reason}" for s in found.skipped)


def collections_text(found: wire.CollectionsResponse) -> str:
    """A tab-separated line a collection: name, files, tier, namespace, folder."""
    return _joined(
        f"{c.name}\t{c.files} files\t{c.tier}\t{c.namespace}\t{c.path}" for c in found.collections
    )


def calibration_name(used: wire.CalibrationUsed) -> str:
    return used.source if used.source == "shipped" else f"{used.source} v{used.version}"


def sweep_text(swept: wire.SweepResponse) -> str:
    before, after = swept.before, swept.after
    lines = [
        f"{swept.namespace or 'the deployment'}: {swept.references} references "
        f"({swept.answerable} answered "
        f"by entries) asked in {_took(swept.took_ms)}; first ten hold the answer "
        f"{_share(swept.top10)}",
        f"{'kept' if swept.kept else 'in force'}: {calibration_name(after)}, threshold "
        f"{before.threshold:g} -> {after.threshold:g}, floor {before.floor:g} -> "
        f"{after.floor:g}",
        *(f"  {reason}" for reason in swept.reason.split("; ")),
    ]
    for name, held in swept.held_out.items():
        lines.append(
            f"  held out, {name.replace('_', ' ')}: Youden's J {_share(held.youden_j)}, "
            f"unanswerable given nothing {_share(held.no_result)}, top-10 cost "
            f"{_share(held.top10_cost)}"
        )
    return _joined(lines)


def _took(ms: float) -> str:
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def calibrations_text(found: wire.CalibrationsResponse) -> str:
    used = found.in_force
    lines = [
        f"{found.namespace or 'the deployment'}: {calibration_name(used)} in force "
        f"(threshold {used.threshold:g},"
        f" floor {used.floor:g}); {found.references} reference questions"
    ]
    for fit in found.fits:
        mark = "*" if fit.in_force else " "
        lines.append(
            f"{mark} v{fit.version}  threshold {fit.threshold:g}  floor {fit.floor:g}  "
            f"{fit.references} references  {fit.fitted_at}  {fit.actor}"
        )
    return _joined(lines)


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def progress_bar(done: int, total: int, label: str = "") -> str:
    """A bar that redraws itself over the current line (it starts with a carriage return)."""
    filled = BAR_WIDTH * done // total if total else BAR_WIDTH
    bar = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total}"
    return f"\r{label + ' ' if label else ''}{bar}"


def show_progress(done: int, total: int, label: str = "") -> None:
    """Draw the progress bar on stderr."""
    print(progress_bar(done, total, label), end="", file=sys.stderr)


def _where(hit: wire.SearchHit | wire.RetrievedEntry) -> str:
    """A collection chunk's ``file:lines``, else the entry's id (and, for an upstream's
    hit, that upstream)."""
    if hit.upstream is not None:
        return f"{hit.id} (upstream {hit.upstream.name}, namespace {hit.upstream.namespace})"
    return f"{hit.file}:{hit.lines}" if hit.file else hit.id


def _joined(lines: Iterable[str]) -> str:
    return "".join(f"{line}\n" for line in lines)
