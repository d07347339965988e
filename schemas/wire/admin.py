"""Administration: ``/v1/admin`` (promotion, jobs, the index rebuild, quarantine)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta, Struct

from schemas.wire.fields import Id, Namespace


class PromoteRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    ids: Annotated[list[Id], Meta(min_length=1, max_length=1000)]
    namespace: Namespace | None = None


class PromoteResponse(Struct):
    namespace: str
    promoted: list[str]


class JobRunOut(Struct, kw_only=True):
    """One run of a job, on whichever replica ran it."""

    replica: str
    started_at: str
    finished_at: str | None
    """Null while it runs."""
    slot: str | None
    """The scheduled turn it ran for; null for a run by hand or a job run per replica."""
    error: str | None


class JobOut(Struct, kw_only=True):
    name: str
    schedule: str
    next_run: str | None
    last_started: str | None
    last_finished: str | None
    last_result: dict[str, Any] | None
    last_error: str | None
    runs: int
    """Runs recorded, on every replica (counted up to 1000)."""
    last_replica: str | None = None
    """The replica that ran it last."""
    per_replica: bool = False
    """Whether every replica runs it on its own index rather than one replica for all."""
    recent: list[JobRunOut] = []
    """The last runs, newest first (at most 5)."""


class JobsResponse(Struct):
    jobs: list[JobOut]


class RebuildOut(Struct, kw_only=True):
    state: Literal["idle", "running", "done", "failed"]
    done: int
    total: int
    started_at: str | None
    finished_at: str | None
    error: str | None


class QuarantinedEntry(Struct):
    namespace: str
    id: str
    reason: str
    """Why it could not be indexed."""
    at: str


class QuarantineResponse(Struct):
    """Entries kept in the ledger but set aside, out of every read, because they could not
    be indexed; writing an entry again (same id) or deleting it takes it out."""

    entries: list[QuarantinedEntry]
