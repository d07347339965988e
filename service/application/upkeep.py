"""Memory's upkeep, as the scheduled jobs run it (``service/jobs`` holds their schedule):
plain functions of the parts of memory and the ports they use, and of the current time."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from service.domain.aging.digests import build_day, day_bounds, group_of, summarized
from service.domain.aging.tiers import DAY
from service.domain.collections.catalog import Collections
from service.domain.entries import DIGEST, Entry
from service.domain.memory import IndexRepair, Lifecycle, Writer
from service.domain.ports import ChangeLog, Entries, Inventory
from service.errors import Conflict

SCHEDULER = "scheduler"
SKIPPED_SHOWN = 100
"""Most skipped files a run of ``rescan_collections`` lists in its result."""


def expire_c_tier(lifecycle: Lifecycle, now: float) -> dict[str, Any]:
    """Drop expired tier C vectors and archive those entries (still BM25-searchable)."""
    lifecycle.drop_expired_vectors(now)
    return {"archived": lifecycle.archive_where("C", expires_before=now, actor=SCHEDULER)}


def archive_e_tier(
    now: float,
    archive_days: float,
    delete_days: float,
    *,
    inventory: Inventory,
    entries: Entries,
    writer: Writer,
    lifecycle: Lifecycle,
) -> dict[str, Any]:
    """Archive tier E entries older than ``archive_days``, the digests of their days
    written first (``archive_e_day``); then delete those older than ``delete_days``, digests
    kept. Zero turns either off."""
    archived = deleted = digests = 0
    if archive_days > 0:
        cutoff = now - archive_days * DAY
        while oldest := inventory.select_keys(
            tier="E", older_than=cutoff, exclude_kind=DIGEST, limit=1
        ):
            found = entries.get(oldest)
            if not found:  # deleted since it was listed
                continue
            group = group_of(found[oldest[0]].entry)
            day_archived, day_digests = archive_e_day(
                group.namespace,
                group.day,
                cutoff,
                inventory=inventory,
                entries=entries,
                writer=writer,
                lifecycle=lifecycle,
            )
            archived, digests = archived + day_archived, digests + day_digests
            if not day_archived:  # rewritten meanwhile: the next run takes what is left
                break
    if delete_days > 0:
        deleted = lifecycle.delete_older(
            "E", now - delete_days * DAY, SCHEDULER, exclude_kind=DIGEST
        )
    return {"archived": archived, "deleted": deleted, "digests": digests}


def archive_e_day(
    namespace: str,
    day: str,
    cutoff: float,
    *,
    inventory: Inventory,
    entries: Entries,
    writer: Writer,
    lifecycle: Lifecycle,
) -> tuple[int, int]:
    """Archive the tier E entries of one namespace and day dated before ``cutoff``, and
    return how many, with how many digests were written.

    The day's digests are written first, from its entries archived already and those about
    to be: a run cut short between the two finds the same entries unarchived next time and
    writes the same digests, so no archived entry is ever left out of its digest. A digest
    that summarises more entries than the ledger still holds (some were deleted since) is
    kept as it is."""
    start, end = day_bounds(day)
    held = inventory.dated(namespace, "E", start, end, archived=True)
    due = [
        e
        for e in inventory.dated(namespace, "E", start, min(end, cutoff), archived=False)
        if e.kind != DIGEST
    ]
    built = build_day([*held, *(replace(e, archived=True) for e in due)])
    current = entries.get([d.key for d in built.values()])
    changed = [
        d
        for d in built.values()
        if (kept := current.get(d.key)) is None
        or (kept.entry != d and summarized(kept.entry) <= summarized(d))
    ]
    if changed:
        writer.write(changed, actor=SCHEDULER)

    def still_due(entry: Entry) -> bool:  # as the entry is when archived
        return entry.tier == "E" and entry.kind != DIGEST and entry.timestamp < cutoff

    archived = lifecycle.archive_if([e.key for e in due], still_due, SCHEDULER)
    return len(archived), len(changed)


def optimize_indexes(lifecycle: Lifecycle) -> dict[str, Any]:
    """Merge Tantivy segments and remove files no longer used."""
    return {"documents": lifecycle.optimize()}


def recover_pending(repair: IndexRepair) -> dict[str, Any]:
    """Apply to the indexes the writes and deletes they have not taken yet."""
    done = repair.recover()
    return {"indexed": done.indexed, "removed": done.removed, "quarantined": done.quarantined}


def backfill_embeddings(repair: IndexRepair) -> dict[str, Any]:
    """Embed tier A and C entries stored while no model was loaded."""
    return {"embedded": repair.backfill()}


def rescan_collections(collections: Collections) -> dict[str, Any]:
    """Re-scan every collection whose folder this replica has: changed files re-embedded,
    removed ones dropped. The others are named in ``missing``, untouched; those a scan
    refuses (outside the roots now, too many files) in ``refused``, untouched too; files
    skipped in ``skipped``, with the reason."""
    totals: dict[str, Any] = {"collections": 0, "added": 0, "changed": 0, "removed": 0}
    for collection in collections.all():
        if collections.files.folder(collection.path) is None:
            totals.setdefault("missing", []).append(f"{collection.name}: {collection.path}")
            continue
        try:
            report = collections.scan(collection, SCHEDULER)
        except Conflict as refused:
            totals.setdefault("refused", []).append(f"{collection.name}: {refused.detail}")
            continue
        totals["collections"] += 1
        totals["added"] += report.added
        totals["changed"] += report.changed
        totals["removed"] += report.removed
        skipped = [f"{collection.name}/{path}: {reason}" for path, reason in report.skipped]
        if skipped:
            totals.setdefault("skipped", []).extend(skipped)
    if len(totals.get("skipped", ())) > SKIPPED_SHOWN:
        more = len(totals["skipped"]) - SKIPPED_SHOWN
        totals["skipped"] = [*totals["skipped"][:SKIPPED_SHOWN], f"and {more} more"]
    return totals


def trim_changes(changes: ChangeLog, now: float, retention_days: float) -> dict[str, Any]:
    """Drop from the ledger's change log the changes older than ``retention_days``."""
    return {"trimmed": changes.trim_changes(now - retention_days * DAY)}
