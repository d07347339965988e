"""What every front end is given, the use cases over the stores, and the stores they are
built over, as ``service.bootstrap`` builds them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from service.application.admin import AdminUseCases
from service.application.answers import AnswerUseCases
from service.application.auth import KeyRing
from service.application.calibrations import CalibrationUseCases
from service.application.collections import CollectionUseCases
from service.application.context import ContextUseCase
from service.application.documents import DocumentUseCases
from service.application.events import EventUseCases
from service.application.limits import Limits
from service.application.namespaces import NamespaceUseCases
from service.application.references import ReferenceUseCases
from service.application.search import SearchUseCase
from service.application.sessions import SessionUseCases
from service.application.status import StatusUseCases
from service.domain.ports import (
    Catalog,
    Checkpoint,
    Compaction,
    Coordination,
    Embedder,
    Files,
    InteractionLog,
    KeywordStore,
    Ledger,
    RunLog,
    SignedOutSessions,
    Upstream,
    VectorStore,
)
from service.settings import Settings
from service.telemetry import Telemetry


@dataclass
class Stores:
    """Every store the use cases need, as ports; ``close`` releases the real ones."""

    ledger: Ledger
    vectors: VectorStore
    keywords: KeywordStore
    catalog: Catalog
    interactions: InteractionLog
    files: Files
    embedder: Embedder | None
    runs: RunLog
    coordination: Coordination
    checkpoint: Checkpoint | None = None
    """Where this replica keeps its place in the ledger's change log when it shares the
    ledger with others; None when it is the ledger's only process."""
    degraded: list[str] = field(default_factory=list)
    """Why a store runs with less than it should (no model, ...)."""
    disk_usage: Callable[[], dict[str, int | None]] = dict
    close: Callable[[], None] = lambda: None
    upstream: Upstream | None = None
    """The memory service asked when this one finds nothing (STRATA_UPSTREAM_URL)."""

    compaction: Compaction = field(default_factory=lambda: NoCompaction())
    """Gives back the space of rows an erasure removed."""
    signed_out: SignedOutSessions = field(default_factory=lambda: SignedOutHere())
    """The console sessions signed out of, shared by the replicas."""


class NoCompaction:
    """For stores that keep nothing in files (the fakes of the tests)."""

    def compact(self) -> None:
        pass


class SignedOutHere:
    """Sessions signed out of, kept by this process alone: for stores that keep nothing
    in files (the fakes of the tests)."""

    def __init__(self) -> None:
        self._until: dict[str, float] = {}

    def sign_out(self, session: str, until: float, now: float) -> None:
        self._until = {s: t for s, t in self._until.items() if t >= now}
        self._until[session] = until

    def signed_out(self, session: str) -> bool:
        return session in self._until


@dataclass
class Services:
    """What a front end is given: the use cases, the keys, each caller's limits, the
    settings and the telemetry; no store, engine or part of the memory."""

    settings: Settings
    keys: KeyRing
    limits: Limits
    """Each caller's limits, which the front ends and the use cases take from."""
    events: EventUseCases
    search: SearchUseCase
    answers: AnswerUseCases
    context: ContextUseCase
    """An answer as one cited block within a token budget."""
    admin: AdminUseCases
    collections: CollectionUseCases
    documents: DocumentUseCases
    namespaces: NamespaceUseCases
    """A namespace's export, import and erasure."""
    status: StatusUseCases
    sessions: SessionUseCases
    """The console's sessions signed out of."""
    calibrations: CalibrationUseCases
    references: ReferenceUseCases
    """Reference questions, which sweeps ask."""
    """Each namespace's calibration from its reference questions: sweeps and their fits."""
    telemetry: Telemetry
