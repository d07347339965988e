"""The upkeep jobs of ``service/application/upkeep.py`` on their configured schedules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.application.calibrations import CalibrationUseCases
from service.application.upkeep import (
    archive_e_tier,
    backfill_embeddings,
    expire_c_tier,
    optimize_indexes,
    recover_pending,
    rescan_collections,
    trim_changes,
)
from service.domain.collections.catalog import Collections
from service.domain.memory import IndexRepair, Lifecycle, Writer
from service.domain.ports import ChangeLog, Entries, Inventory
from service.jobs.scheduler import Scheduler
from service.settings import LifecycleSettings


def upkeep_jobs(
    scheduler: Scheduler,
    settings: LifecycleSettings,
    retention_days: float,
    *,
    inventory: Inventory,
    entries: Entries,
    changes: ChangeLog,
    writer: Writer,
    lifecycle: Lifecycle,
    repair: IndexRepair,
    collections: Collections,
    calibrations: CalibrationUseCases,
    clock: Callable[[], float],
) -> Scheduler:
    """The upkeep jobs on their configured schedules, added to ``scheduler``."""

    def archive_e() -> dict[str, Any]:
        return archive_e_tier(
            clock(),
            settings.e_archive_days,
            settings.e_delete_days,
            inventory=inventory,
            entries=entries,
            writer=writer,
            lifecycle=lifecycle,
        )

    scheduler.add(
        "expire_c_tier", settings.expire_c_cron, lambda: expire_c_tier(lifecycle, clock())
    )
    scheduler.add("archive_e_tier", settings.archive_e_cron, archive_e)
    scheduler.add(
        "optimize_indexes",
        settings.optimize_cron,
        lambda: optimize_indexes(lifecycle),
        per_replica=True,  # each replica merges its own keyword index
    )
    scheduler.add("recover_pending", settings.recover_cron, lambda: recover_pending(repair))
    scheduler.add(
        "backfill_embeddings", settings.backfill_cron, lambda: backfill_embeddings(repair)
    )
    scheduler.add(
        "trim_changes",
        settings.trim_changes_cron,
        lambda: trim_changes(changes, clock(), retention_days),
    )
    if settings.rescan_cron:
        scheduler.add(
            "rescan_collections", settings.rescan_cron, lambda: rescan_collections(collections)
        )
    if settings.sweep_cron:
        scheduler.add(
            "sweep_references",
            settings.sweep_cron,
            lambda: calibrations.sweep_due(settings.sweep_after),
        )
    return scheduler
