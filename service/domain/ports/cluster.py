"""What the processes sharing one ledger share besides it: job runs, signed-out sessions,
who leads, and each replica's checkpoint."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

from service.domain.model import JobRun


class RunLog(Protocol):
    """The runs of the lifecycle jobs, shared by every replica of a cluster."""

    def start(self, job: str, replica: str, at: float, slot: float | None = None) -> int | None:
        """Record a run as started and return its id; None, and nothing recorded, when a
        run of ``job`` for this ``slot`` (a scheduled time) was started already."""
        ...

    def finish(
        self, run: int, at: float, result: Mapping[str, Any] | None, error: str | None
    ) -> None: ...

    def last(self) -> dict[str, JobRun]:
        """The latest run of each job that ever ran."""
        ...

    def runs(self, job: str, limit: int = 20) -> list[JobRun]:
        """The runs of ``job``, newest first."""
        ...


class SignedOutSessions(Protocol):
    """Console sessions ended by signing out before they expired, shared by every replica:
    a cookie of one is refused wherever it is presented."""

    def sign_out(self, session: str, until: float, now: float) -> None:
        """Refuse the session of id ``session`` from now on. Its record may go at ``until``
        (when the session expires anyway); records past their time at ``now`` go here."""
        ...

    def signed_out(self, session: str) -> bool:
        """Whether the session of id ``session`` was signed out of."""
        ...


class Coordination(Protocol):
    """Who of the processes sharing one ledger does what."""

    def lead(self) -> bool:
        """Try to become (or stay) the one process that runs the scheduled jobs; True while
        this process leads. Leadership ends with the process or its database connection."""
        ...

    def job_lock(self, job: str) -> AbstractContextManager[bool]:
        """Hold the one lock of ``job`` shared by every process for the block; the block is
        given False, without waiting, when another run holds it."""
        ...

    def close(self) -> None: ...


class Checkpoint(Protocol):
    """Where a replica keeps the last change of the ledger its own index has applied."""

    def load(self) -> int | None:
        """The sequence number saved last; None when none was saved (or it is unreadable)."""
        ...

    def save(self, seq: int) -> None:
        """Keep ``seq``, replacing what was saved, whole or not at all."""
        ...
