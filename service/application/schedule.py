"""What the use cases read of the job schedule and ask of it; ``service/jobs`` runs it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from service.domain.model import JobRun


class ScheduledJob(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def cron(self) -> str: ...

    @property
    def per_replica(self) -> bool:
        """Run by every replica (else by the leader alone)."""
        ...


class Schedule(Protocol):
    @property
    def leading(self) -> bool:
        """Whether this replica led when it last tried."""
        ...

    def records(self) -> Sequence[ScheduledJob]: ...

    def run(self, name: str) -> JobRun:
        """Run the job now; its run once it has finished."""
        ...

    def next_run(self, name: str) -> datetime | None: ...

    def history(self, name: str, limit: int) -> list[JobRun]:
        """The job's last ``limit`` runs, newest first."""
        ...

    def start(self) -> None:
        """Run the jobs on their schedules, until ``shutdown``."""
        ...

    def shutdown(self) -> None: ...
