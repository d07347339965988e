"""The lifecycle jobs: plain functions of the memory and the current time."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from service.domain.collections import Collections
from service.domain.digests import build_day, day_bounds, group_of, summarized
from service.domain.memory import Memory
from service.domain.models import DIGEST, Entry
from service.domain.tiers import DAY
from service.errors import Conflict
from service.jobs.scheduler import Scheduler
from service.settings import LifecycleSettings

SCHEDULER = "scheduler"
DIGESTS_WRITTEN = 200
"""Digests written by one write of ``archive_e_tier`` (one commit of each index)."""
SKIPPED_SHOWN = 100
"""Most skipped files a run of ``rescan_collections`` lists in its result."""


def expire_c_tier(memory: Memory, now: float) -> dict[str, Any]:
    """Drop expired tier C vectors and archive those entries (still BM25-searchable)."""
    memory.drop_expired_vectors(now)
    return {"archived": memory.archive_where("C", expires_before=now, actor=SCHEDULER)}


def archive_e_tier(
    memory: Memory, now: float, archive_days: float, delete_days: float
) -> dict[str, Any]:
    """Archive tier E entries older than ``archive_days`` and write the digests of the days
    they belong to (``service.domain.digests``); then delete those older than
    ``delete_days``, digests kept. Zero turns either off."""
    archived = deleted = digests = 0
    if archive_days > 0:
        days: set[tuple[str, str]] = set()

        def archived_now(batch: Sequence[Entry]) -> None:
            days.update((g.namespace, g.day) for g in map(group_of, batch))

        archived = memory.archive_where(
            "E",
            older_than=now - archive_days * DAY,
            exclude_kind=DIGEST,
            actor=SCHEDULER,
            archived=archived_now,
        )
        digests = write_digests(memory, days)
    if delete_days > 0:
        deleted = memory.delete_older("E", now - delete_days * DAY, SCHEDULER, exclude_kind=DIGEST)
    return {"archived": archived, "deleted": deleted, "digests": digests}


def write_digests(memory: Memory, days: Iterable[tuple[str, str]]) -> int:
    """Rebuild the digests of these (namespace, day) pairs from the archived tier E entries
    the ledger holds of them; write those that changed, ``DIGESTS_WRITTEN`` at a time, and
    return how many. A digest that summarises more entries than the ledger still holds (some
    were deleted since) is kept as it is."""
    written: list[Entry] = []
    total = 0
    for namespace, day in sorted(days):
        start, end = day_bounds(day)
        built = build_day(memory.ledger.dated(namespace, "E", start, end, archived=True))
        current = memory.ledger.get([d.key for d in built.values()])
        written.extend(
            d
            for d in built.values()
            if (kept := current.get(d.key)) is None
            or (kept.entry != d and summarized(kept.entry) <= summarized(d))
        )
        if len(written) >= DIGESTS_WRITTEN:
            memory.write(written, actor=SCHEDULER)
            total, written = total + len(written), []
    if written:
        memory.write(written, actor=SCHEDULER)
    return total + len(written)


def optimize_indexes(memory: Memory) -> dict[str, Any]:
    """Merge Tantivy segments and remove files no longer used."""
    return {"documents": memory.optimize()}


def recover_pending(memory: Memory) -> dict[str, Any]:
    """Apply to the indexes the writes and deletes they have not taken yet."""
    done = memory.recover()
    return {"indexed": done.indexed, "removed": done.removed, "quarantined": done.quarantined}


def backfill_embeddings(memory: Memory) -> dict[str, Any]:
    """Embed tier A and C entries stored while no model was loaded."""
    return {"embedded": memory.backfill()}


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


def trim_changes(memory: Memory, now: float, retention_days: float) -> dict[str, Any]:
    """Drop from the ledger's change log the changes older than ``retention_days``."""
    return {"trimmed": memory.ledger.trim_changes(now - retention_days * DAY)}


def lifecycle_jobs(
    scheduler: Scheduler,
    settings: LifecycleSettings,
    retention_days: float,
    memory: Memory,
    collections: Collections,
    clock: Callable[[], float],
) -> Scheduler:
    """The lifecycle jobs on their configured schedules, added to ``scheduler``."""
    scheduler.add("expire_c_tier", settings.expire_c_cron, lambda: expire_c_tier(memory, clock()))
    scheduler.add(
        "archive_e_tier",
        settings.archive_e_cron,
        lambda: archive_e_tier(memory, clock(), settings.e_archive_days, settings.e_delete_days),
    )
    scheduler.add(
        "optimize_indexes",
        settings.optimize_cron,
        lambda: optimize_indexes(memory),
        per_replica=True,  # each replica merges its own keyword index
    )
    scheduler.add("recover_pending", settings.recover_cron, lambda: recover_pending(memory))
    scheduler.add(
        "backfill_embeddings", settings.backfill_cron, lambda: backfill_embeddings(memory)
    )
    scheduler.add(
        "trim_changes",
        settings.trim_changes_cron,
        lambda: trim_changes(memory, clock(), retention_days),
    )
    if settings.rescan_cron:
        scheduler.add(
            "rescan_collections", settings.rescan_cron, lambda: rescan_collections(collections)
        )
    return scheduler
