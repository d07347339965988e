"""When the scheduled jobs run and how long entries of each tier live."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from msgspec import Meta, field

from service.settings.base import Days, Group, Switch


class LifecycleSettings(Group, frozen=True):
    c_ttl_days: Days = 7.0
    """Default lifetime of tier C entries, in days from the event timestamp."""
    ttl_by_chain_type: Mapping[str, Days] = field(default_factory=dict)
    """Per ``chain_type`` lifetime of tier C entries, as JSON: ``{"standup": 2}``."""
    jobs: Switch = "on"
    """Run the scheduled lifecycle jobs: ``on`` or ``off`` (they can still be run by hand)."""
    expire_c_cron: str = "0 * * * *"
    """When ``expire_c_tier`` archives expired tier C entries (crontab, UTC)."""
    archive_e_cron: str = "30 3 * * *"
    """When ``archive_e_tier`` archives (and optionally deletes) old tier E entries."""
    optimize_cron: str = "0 4 * * *"
    """When ``optimize_indexes`` merges Tantivy segments and collects garbage."""
    recover_cron: str = "* * * * *"
    """When ``recover_pending`` applies to the indexes the writes an index failed to take
    (and sets aside, in quarantine, entries that cannot be indexed)."""
    backfill_cron: str = "*/15 * * * *"
    """When ``backfill_embeddings`` embeds A/C entries written while no model was loaded."""
    rescan_cron: str = ""
    """When ``rescan_collections`` re-scans every collection (crontab, UTC); empty: never."""
    trim_changes_cron: str = "15 * * * *"
    """When ``trim_changes`` drops changes older than STRATA_CHANGE_RETENTION_DAYS from the
    ledger's change log."""
    sweep_cron: str = "45 * * * *"
    """When ``sweep_references`` sweeps each namespace given ``sweep_after`` reference
    questions since its last sweep (crontab, UTC); empty: never."""
    sweep_after: Annotated[int, Meta(ge=1)] = 10
    """New reference questions that make a namespace due for a scheduled sweep."""
    e_archive_days: Days = 30.0
    """Tier E entries older than this many days are archived; 0 keeps them active."""
    e_delete_days: Days = 0.0
    """Tier E entries older than this many days are deleted for good; 0 never deletes."""
