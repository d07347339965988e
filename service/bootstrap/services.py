"""The use cases built once from the stores (as ports) and the settings: each is given the
ports, or the part of the memory, it uses."""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from service import VERSION
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
from service.application.rebuild import Rebuilder
from service.application.recall import RecallUseCases
from service.application.references import ReferenceUseCases
from service.application.search import SearchUseCase
from service.application.services import Services, Stores
from service.application.sessions import SessionUseCases
from service.application.status import Replica, StatusUseCases
from service.bootstrap.runtime import Runtime
from service.domain.aging.tiers import ExpiryPolicy
from service.domain.answers.answer import Answerer
from service.domain.cluster.replication import Follower
from service.domain.collections.catalog import Collections
from service.domain.collections.folders import SYSTEM_FOLDERS, FolderRules
from service.domain.memory import Indexes, Memory, Preparer
from service.domain.ports import Upstream
from service.domain.recall import RetryPolicy, UpstreamRecall
from service.domain.search.kept_passages import KeptPassages
from service.domain.search.query import SearchOutcome
from service.domain.search.searcher import Searcher, Weighting
from service.domain.search.usage import ReadModelUsage
from service.domain.tokens import CharacterTokens
from service.jobs.schedule import upkeep_jobs
from service.jobs.scheduler import Scheduler
from service.lib.breaker import CircuitBreaker
from service.lib.cache import QueryCache
from service.lib.engines import Engines
from service.settings import Settings
from service.telemetry import Telemetry
from service.telemetry.engines import instrumented
from service.telemetry.metrics import Metrics
from service.telemetry.readings import Readings
from service.telemetry.tracing import Tracing, current_tracer


def new_id() -> str:
    """A fresh id: 32 hex characters."""
    return uuid.uuid4().hex


def folder_rules(settings: Settings) -> FolderRules:
    """Where collections may read: the roots, less the system folders and the service's own
    data (its data directory and its keys file)."""
    own = (str(settings.storage.data_dir), settings.server.api_keys_file)
    c = settings.collections
    return FolderRules(
        c.root_folders(has_keys=settings.server.has_keys),
        max_files=c.max_files,
        max_file_bytes=c.max_file_bytes,
        refused=SYSTEM_FOLDERS + tuple(os.path.realpath(path) for path in own if path),
    )


def telemetry_of(settings: Settings) -> Telemetry:
    """Metrics as the settings say; spans when the process traces (``start_tracing``)."""
    t = settings.telemetry
    return Telemetry(
        Metrics(replica_name(settings), VERSION) if t.metrics == "on" else None,
        Tracing(current_tracer(), content=t.trace_content == "on"),
    )


def replica_name(settings: Settings) -> str:
    """STRATA_REPLICA_NAME, else ``<hostname>:<port>``."""
    return settings.cluster.replica_name or f"{socket.gethostname()}:{settings.server.port}"


def _no_tokens(texts: Sequence[str]) -> list[int]:
    """Without a model nothing is embedded at read time, so nothing is counted."""
    return [0] * len(texts)


def build_runtime(
    settings: Settings,
    stores: Stores,
    *,
    clock: Callable[[], float] = time.time,
    new_id: Callable[[], str] = new_id,
    telemetry: Telemetry | None = None,
) -> Runtime:
    """The use cases over ``stores``; nothing is opened, recovered or started here.
    ``telemetry`` sees the engine calls, searches, writes and job runs (None: as the
    settings say)."""
    s = settings
    telemetry = telemetry or telemetry_of(settings)
    metrics = telemetry.metrics
    engines = Engines()
    stores = instrument(stores, telemetry, engines)
    cache: QueryCache[SearchOutcome] = QueryCache(
        s.search.query_cache_size,
        s.search.query_cache_seconds,
        clock,
        max_bytes=s.search.query_cache_bytes,
        weigh=lambda outcome: outcome.weight,
    )
    passages = KeptPassages(stores.ledger, s.search.query_cache_seconds, clock)

    def changed(namespaces: Iterable[str]) -> None:
        """What was computed or read of these namespaces is not returned again."""
        namespaces = set(namespaces)
        cache.invalidate(namespaces)
        passages.changed(namespaces)

    indexes = Indexes(
        stores.ledger,
        stores.ledger,
        stores.vectors,
        stores.keywords,
        clock=clock,
        on_change=changed,
    )
    memory = Memory.over(
        stores.ledger,
        indexes,
        Preparer(stores.embedder, s.chunking),
        on_commit=metrics.committed if metrics is not None else None,
    )
    usage = ReadModelUsage(
        stores.embedder.count_tokens if stores.embedder is not None else _no_tokens, clock
    )
    searcher = Searcher(
        passages,
        stores.vectors,
        stores.keywords,
        stores.embedder,
        s.search,
        weighting=Weighting(s.search.tier_weights, s.search.c_recency_days),
        cache=cache,
        usage=usage,
        engines=engines,
        on_search=metrics.searched if metrics is not None else None,
        history=stores.ledger,
    )
    answerer = Answerer(
        searcher,
        stores.embedder,
        stores.interactions,
        s.answers,
        new_id=new_id,
        fits=stores.ledger,
        references=stores.ledger,
    )
    collections = Collections(
        stores.catalog,
        memory.writer,
        memory.lifecycle,
        stores.files,
        s.chunking,
        rules=folder_rules(s),
        clock=clock,
    )
    calibrations = CalibrationUseCases(answerer, stores.ledger, stores.ledger, clock=clock)
    references = ReferenceUseCases(stores.ledger, stores.ledger, clock=clock)
    replica = replica_name(s)
    scheduler = upkeep_jobs(
        Scheduler(
            stores.runs,
            stores.coordination,
            replica,
            clock,
            on_run=metrics.job_ran if metrics is not None else None,
        ),
        s.lifecycle,
        s.cluster.change_retention_days,
        inventory=stores.ledger,
        entries=stores.ledger,
        changes=stores.ledger,
        writer=memory.writer,
        lifecycle=memory.lifecycle,
        repair=memory.repair,
        collections=collections,
        calibrations=calibrations,
        clock=clock,
    )
    follower = None
    if stores.checkpoint is not None:
        follower = Follower(stores.ledger, indexes, stores.checkpoint)
    rebuilder = Rebuilder(memory.repair, stores.ledger, clock)
    degraded = stores.degraded
    collection_cases = CollectionUseCases(
        collections, stores.catalog, stores.files, clock=clock, new_id=new_id
    )
    keys = KeyRing.load(s.server.api_keys, s.server.api_keys_file)
    limits = Limits(s.limits, keyed=keys.enabled, clock=clock)
    events = EventUseCases(
        memory.writer,
        memory.lifecycle,
        ExpiryPolicy(s.lifecycle.c_ttl_days, s.lifecycle.ttl_by_chain_type),
        limits,
        entries=stores.ledger,
        histories=stores.ledger,
        relations=stores.ledger,
        chunking=s.chunking,
        max_batch=s.server.max_batch,
        clock=clock,
        new_id=new_id,
        tracing=telemetry.tracing,
    )
    upstream = upstream_recall(settings, stores.upstream, clock)
    recall = None
    if upstream is not None:
        recall = RecallUseCases(upstream, events, keep=s.upstream.store == "on")
    if metrics is not None:
        metrics.watch(
            Readings(
                read_work=lambda: (usage.snapshot().queries, usage.snapshot().passages),
                engine_up=lambda engine: (
                    engines.state(engine).state != "unavailable"
                    and (engine != "model" or stores.embedder is not None)
                ),
                lag=(lambda: _lag(follower)) if follower is not None else None,
                changes_applied=(lambda: follower.changes_applied) if follower else None,
                leads=lambda: scheduler.leading,
                quarantined=lambda: len(stores.ledger.quarantined(limit=QUARANTINE_COUNTED)),
                cached_queries=lambda: len(cache),
                upstream=upstream.snapshot if upstream is not None else None,
            )
        )
    services = Services(
        settings=s,
        keys=keys,
        limits=limits,
        events=events,
        search=SearchUseCase(
            searcher,
            degraded,
            text_chars=s.server.max_hit_chars,
            clock=clock,
            tracing=telemetry.tracing,
            recall=recall,
            tunings=answerer.tunings,
        ),
        answers=AnswerUseCases(
            answerer,
            stores.interactions,
            degraded,
            text_chars=s.server.max_hit_chars,
            clock=clock,
            telemetry=telemetry,
            recall=recall,
            recall_when_weak=s.upstream.on_weak == "on",
            ledger=stores.ledger,
            references=references,
        ),
        context=ContextUseCase(
            answerer,
            stores.embedder.tokens if stores.embedder else CharacterTokens(),
            degraded,
            clock=clock,
            ledger=stores.ledger,
            by_model=stores.embedder is not None,
            telemetry=telemetry,
        ),
        admin=AdminUseCases(memory.lifecycle, scheduler, rebuilder),
        calibrations=calibrations,
        references=references,
        collections=collection_cases,
        documents=DocumentUseCases(
            collection_cases,
            stores.catalog,
            stores.files,
            max_documents=s.server.max_documents,
            max_bytes=s.server.max_documents_bytes,
        ),
        namespaces=NamespaceUseCases(
            memory.transfer,
            stores.ledger,
            stores.ledger,
            stores.ledger,
            stores.catalog,
            stores.interactions,
            stores.compaction,
            s,
            embedder=stores.embedder,
            folder_refusal=collections.refusal_at,
            clock=clock,
        ),
        status=StatusUseCases(
            stores.ledger,
            stores.vectors,
            stores.keywords,
            stores.embedder,
            searcher,
            degraded,
            stores.disk_usage,
            Replica(replica, follower),
            scheduler,
            usage,
            upstream,
        ),
        sessions=SessionUseCases(stores.signed_out, clock),
        telemetry=telemetry,
    )
    return Runtime(
        services,
        stores,
        memory,
        memory.repair,
        searcher,
        scheduler,
        rebuilder,
        follower,
        upstream,
    )


def upstream_recall(
    settings: Settings, upstream: Upstream | None, clock: Callable[[], float]
) -> UpstreamRecall | None:
    """The recall from ``upstream`` as the settings bound it; its breaker's times come from
    ``clock``, its budget is measured on the monotonic clock."""
    if upstream is None:
        return None
    u = settings.upstream
    return UpstreamRecall(
        upstream,
        RetryPolicy(u.timeout, u.retries, u.backoff_ms / 1000),
        CircuitBreaker(u.failures, u.cooldown, clock),
        namespaces=u.namespaces,
        in_flight=u.in_flight,
    )


QUARANTINE_COUNTED = 10_000
"""Most entries set aside the metrics count (a scrape reads no more)."""


def instrument(stores: Stores, telemetry: Telemetry, engines: Engines) -> Stores:
    """``stores`` with their engines' calls seen by ``telemetry`` and told to ``engines``."""
    metrics, tracer = telemetry.metrics, telemetry.tracing.tracer
    if metrics is None and tracer is None:
        return stores
    return replace(
        stores,
        ledger=instrumented(stores.ledger, "ledger", metrics, engines, tracer),
        vectors=instrumented(stores.vectors, "vector store", metrics, engines, tracer),
        keywords=instrumented(stores.keywords, "keyword index", metrics, engines, tracer),
        embedder=(
            instrumented(stores.embedder, "model", metrics, engines, tracer)
            if stores.embedder is not None
            else None
        ),
    )


def _lag(follower: Follower) -> tuple[float, int]:
    lag = follower.lag()
    return lag.seconds, lag.changes
