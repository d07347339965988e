"""The use cases, built once from the stores (as ports) and the settings."""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from service.application.admin import AdminUseCases
from service.application.answers import AnswerUseCases
from service.application.auth import KeyRing
from service.application.collections import CollectionUseCases
from service.application.documents import DocumentUseCases
from service.application.events import EventUseCases
from service.application.limits import Limits
from service.application.search import SearchUseCase
from service.application.status import Replica, StatusUseCases
from service.domain.answer import Answerer
from service.domain.cache import QueryCache
from service.domain.collections import Collections
from service.domain.folders import SYSTEM_FOLDERS, FolderRules
from service.domain.memory import Memory
from service.domain.models import SearchOutcome
from service.domain.ports import (
    Catalog,
    Checkpoint,
    Coordination,
    Embedder,
    Files,
    InteractionLog,
    KeywordStore,
    Ledger,
    RunLog,
    VectorStore,
)
from service.domain.replication import Follower
from service.domain.retrieval import Retriever, Weighting
from service.domain.tiers import ExpiryPolicy
from service.domain.usage import ReadModelUsage
from service.jobs.lifecycle import lifecycle_jobs
from service.jobs.rebuild import Rebuilder
from service.jobs.scheduler import Scheduler
from service.settings import Settings


def new_id() -> str:
    """A fresh id: 32 hex characters."""
    return uuid.uuid4().hex


def folder_rules(settings: Settings) -> FolderRules:
    """Where collections may read: the roots, less the system folders and the service's own
    data (its data directory and its keys file)."""
    own = (str(settings.storage.data_dir), settings.server.api_keys_file)
    c = settings.collections
    return FolderRules(
        c.roots(has_keys=settings.server.has_keys),
        max_files=c.max_collection_files,
        max_file_bytes=c.max_file_bytes,
        refused=SYSTEM_FOLDERS + tuple(os.path.realpath(path) for path in own if path),
    )


def replica_name(settings: Settings) -> str:
    """STRATA_REPLICA_NAME, else ``<hostname>:<port>``."""
    return settings.cluster.replica_name or f"{socket.gethostname()}:{settings.server.port}"


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


@dataclass
class Services:
    """The use cases every front end calls, and the parts the lifespan drives."""

    settings: Settings
    keys: KeyRing
    limits: Limits
    """Each caller's limits, which the front ends and the use cases take from."""
    events: EventUseCases
    search: SearchUseCase
    answers: AnswerUseCases
    admin: AdminUseCases
    collections: CollectionUseCases
    documents: DocumentUseCases
    status: StatusUseCases
    memory: Memory
    retriever: Retriever
    scheduler: Scheduler
    rebuilder: Rebuilder
    stores: Stores
    follower: Follower | None
    """Applies what other replicas change to this one's keyword index (in a cluster)."""

    def close(self) -> None:
        if self.follower is not None:
            self.follower.stop()
        self.scheduler.shutdown()
        self.rebuilder.wait()
        self.stores.close()


def _no_tokens(texts: Sequence[str]) -> list[int]:
    """Without a model nothing is embedded at read time, so nothing is counted."""
    return [0] * len(texts)


def build_services(
    settings: Settings,
    stores: Stores,
    *,
    clock: Callable[[], float] = time.time,
    new_id: Callable[[], str] = new_id,
) -> Services:
    """The use cases over ``stores``; nothing is opened, recovered or started here."""
    s = settings
    cache: QueryCache[SearchOutcome] = QueryCache(
        s.search.query_cache_size,
        s.search.query_cache_seconds,
        clock,
        max_bytes=s.search.query_cache_bytes,
        weigh=lambda outcome: outcome.weight,
    )
    memory = Memory(
        stores.ledger,
        stores.vectors,
        stores.keywords,
        stores.embedder,
        s.chunking,
        clock=clock,
        on_change=cache.invalidate,
    )
    usage = ReadModelUsage(
        stores.embedder.count_tokens if stores.embedder is not None else _no_tokens, clock
    )
    retriever = Retriever(
        stores.ledger,
        stores.vectors,
        stores.keywords,
        stores.embedder,
        s.search,
        weighting=Weighting(s.search.tier_weights, s.search.c_recency_days),
        cache=cache,
        usage=usage,
        history=stores.ledger,
    )
    answerer = Answerer(retriever, stores.embedder, stores.interactions, s.answers, new_id=new_id)
    collections = Collections(
        stores.catalog, memory, stores.files, s.chunking, rules=folder_rules(s), clock=clock
    )
    replica = replica_name(s)
    scheduler = lifecycle_jobs(
        Scheduler(stores.runs, stores.coordination, replica, clock),
        s.lifecycle,
        s.cluster.change_retention_days,
        memory,
        collections,
        clock,
    )
    follower = None
    if stores.checkpoint is not None:
        follower = Follower(
            stores.ledger,
            stores.keywords,
            stores.checkpoint,
            lock=memory.lock,
            on_change=cache.invalidate,
            clock=clock,
        )
    rebuilder = Rebuilder(memory, clock)
    degraded = stores.degraded
    collection_cases = CollectionUseCases(
        collections, stores.catalog, stores.files, clock=clock, new_id=new_id
    )
    keys = KeyRing.load(s.server.api_keys, s.server.api_keys_file)
    limits = Limits(s.limits, keyed=keys.enabled, clock=clock)
    return Services(
        settings=s,
        keys=keys,
        limits=limits,
        events=EventUseCases(
            memory,
            ExpiryPolicy(s.lifecycle.c_ttl_days, s.lifecycle.ttl_by_chain_type),
            limits,
            max_batch=s.server.max_batch,
            clock=clock,
            new_id=new_id,
        ),
        search=SearchUseCase(retriever, degraded, text_chars=s.server.max_hit_chars, clock=clock),
        answers=AnswerUseCases(
            answerer,
            stores.interactions,
            degraded,
            text_chars=s.server.max_hit_chars,
            clock=clock,
            ledger=stores.ledger,
        ),
        admin=AdminUseCases(memory, scheduler, rebuilder),
        collections=collection_cases,
        documents=DocumentUseCases(
            collection_cases,
            stores.catalog,
            stores.files,
            max_documents=s.server.max_documents,
            max_bytes=s.server.max_documents_bytes,
        ),
        status=StatusUseCases(
            stores.ledger,
            stores.vectors,
            stores.keywords,
            stores.embedder,
            retriever,
            degraded,
            stores.disk_usage,
            Replica(replica, follower),
            scheduler,
            usage,
        ),
        memory=memory,
        retriever=retriever,
        scheduler=scheduler,
        rebuilder=rebuilder,
        stores=stores,
        follower=follower,
    )
