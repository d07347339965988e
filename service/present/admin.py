"""Promotions, jobs, rebuilds and quarantine as the wire types of ``schemas.wire.admin``."""

from __future__ import annotations

from schemas import wire
from service.application.admin import JobView, Promoted
from service.application.rebuild import RebuildStatus
from service.domain.entries import Quarantined, key_namespace
from service.lib.fields import fields_of
from service.present.times import format_time


def promoted_out(promoted: Promoted) -> wire.PromoteResponse:
    return wire.PromoteResponse(promoted.namespace, promoted.ids)


def job_out(job: JobView) -> wire.JobOut:
    return wire.JobOut(
        **fields_of(job, "name", "schedule", "last_result", "last_error", "runs"),
        **fields_of(job, "last_replica", "per_replica"),
        next_run=format_time(job.next_run),
        last_started=format_time(job.last_started),
        last_finished=format_time(job.last_finished),
        recent=[
            wire.JobRunOut(
                replica=run.replica,
                started_at=format_time(run.started_at) or "",
                finished_at=format_time(run.finished_at),
                slot=format_time(run.slot),
                error=run.error,
            )
            for run in job.recent
        ],
    )


def rebuild_out(status: RebuildStatus) -> wire.RebuildOut:
    return wire.RebuildOut(
        state=status.state,  # type: ignore[arg-type]
        done=status.done,
        total=status.total,
        started_at=format_time(status.started_at),
        finished_at=format_time(status.finished_at),
        error=status.error,
    )


def quarantine_out(aside: list[Quarantined]) -> wire.QuarantineResponse:
    return wire.QuarantineResponse(
        [
            wire.QuarantinedEntry(
                key_namespace(q.key), q.key.split(":", 1)[1], q.reason, format_time(q.at) or ""
            )
            for q in aside
        ]
    )
