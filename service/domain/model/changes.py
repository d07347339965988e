"""The change log replicas follow, and the runs of the jobs they share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Change:
    """One committed change to an entry (written, flagged for removal, removed or set
    aside), in the order replicas apply them to their own indexes."""

    seq: int
    key: str
    at: float


@dataclass(frozen=True)
class ChangeBounds:
    """What a ledger's change log still holds."""

    horizon: int
    """The highest sequence number dropped by trimming (0: none dropped). A replica whose
    checkpoint is below it has missed changes and rebuilds its index from the ledger."""
    latest: int
    """The highest sequence number committed (0: none yet)."""


@dataclass(frozen=True)
class JobRun:
    """One run of a lifecycle job, as every replica of a cluster reports it."""

    id: int
    job: str
    replica: str
    started_at: float
    finished_at: float | None = None
    result: Mapping[str, Any] | None = None
    error: str | None = None
    slot: float | None = None
    """The scheduled time it ran for; None for a run by hand."""
