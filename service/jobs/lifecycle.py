"""The lifecycle jobs: plain functions of the memory and the current time."""

from __future__ import annotations

from typing import Any

from service.domain.collections import Collections
from service.domain.memory import Memory
from service.domain.tiers import DAY

SCHEDULER = "scheduler"
BATCH = 500


def expire_c_tier(memory: Memory, now: float) -> dict[str, Any]:
    """Drop expired tier C vectors and archive those entries (still BM25-searchable)."""
    memory.vectors.delete_expired(now)
    archived = 0
    while keys := memory.ledger.select_keys(tier="C", expires_before=now, limit=BATCH):
        archived += memory.set_archived(keys, True, SCHEDULER)
    return {"archived": archived}


def archive_e_tier(
    memory: Memory, now: float, archive_days: float, delete_days: float
) -> dict[str, Any]:
    """Archive tier E entries older than ``archive_days``; delete those older than
    ``delete_days``. Zero turns either off."""
    archived = deleted = 0
    if delete_days > 0:
        cutoff = now - delete_days * DAY
        for archived_flag in (False, True):
            while keys := memory.ledger.select_keys(
                tier="E", archived=archived_flag, older_than=cutoff, limit=BATCH
            ):
                deleted += len(memory.delete(keys, SCHEDULER))
    if archive_days > 0:
        cutoff = now - archive_days * DAY
        while keys := memory.ledger.select_keys(tier="E", older_than=cutoff, limit=BATCH):
            archived += memory.set_archived(keys, True, SCHEDULER)
    return {"archived": archived, "deleted": deleted}


def optimize_indexes(memory: Memory) -> dict[str, Any]:
    """Merge Tantivy segments and remove files no longer used."""
    memory.keywords.optimize()
    return {"documents": memory.keywords.count()}


def backfill_embeddings(memory: Memory) -> dict[str, Any]:
    """Embed tier A and C entries stored while no model was loaded."""
    return {"embedded": memory.backfill()}


def rescan_collections(collections: Collections) -> dict[str, Any]:
    """Re-scan every collection: changed files re-embedded, removed ones dropped."""
    totals = {"collections": 0, "added": 0, "changed": 0, "removed": 0}
    for collection in collections.catalog.all():
        report = collections.scan(collection, SCHEDULER)
        totals["collections"] += 1
        totals["added"] += report.added
        totals["changed"] += report.changed
        totals["removed"] += report.removed
    return totals
