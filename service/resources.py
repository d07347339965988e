"""Heavy resources (model, stores, jobs) opened at start-up and closed in reverse order."""

from __future__ import annotations

import logging
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from service.auth import KeyRing
from service.domain.answer import Answerer, AnswerPolicy
from service.domain.cache import QueryCache
from service.domain.collections import Collections
from service.domain.memory import Memory
from service.domain.models import SearchOutcome
from service.domain.ports import Embedder
from service.domain.retrieval import Retriever, Weighting
from service.domain.tiers import ExpiryPolicy
from service.jobs import lifecycle
from service.jobs.rebuild import Rebuilder
from service.jobs.scheduler import Jobs
from service.settings import Settings
from service.stores.catalog import SqliteCatalog
from service.stores.chroma import ChromaVectorStore, connect, forget_clients
from service.stores.files import list_files
from service.stores.interactions import SqliteInteractionLog
from service.stores.ledger import SqliteLedger
from service.stores.tantivy import TantivyKeywordStore

log = logging.getLogger("strata")
T = TypeVar("T")

NO_MODEL = (
    "embedding model unavailable ({}): searches use BM25 only; tier A and C events are "
    "stored and embedded once a model loads"
)


def new_entry_id() -> str:
    """A fresh entry id: 32 hex characters."""
    return uuid.uuid4().hex


@dataclass
class Resources:
    settings: Settings
    keys: KeyRing
    ledger: SqliteLedger
    vectors: ChromaVectorStore
    keywords: TantivyKeywordStore
    embedder: Embedder | None
    memory: Memory
    retriever: Retriever
    policy: ExpiryPolicy
    jobs: Jobs
    rebuilder: Rebuilder
    catalog: SqliteCatalog
    collections: Collections
    interactions: SqliteInteractionLog
    answerer: Answerer
    clock: Callable[[], float] = time.time
    new_id: Callable[[], str] = new_entry_id
    degraded: list[str] = field(default_factory=list)

    def close(self) -> None:
        self.jobs.shutdown()
        self.rebuilder.wait()
        self.keywords.close()
        self.catalog.close()
        self.interactions.close()
        self.ledger.close()


def load_embedder(settings: Settings) -> tuple[Embedder | None, list[str]]:
    from service.stores.embedder import open_embedder

    try:
        embedder = open_embedder(
            settings.embedding_model,
            settings.embedding_backend,
            settings.model_cache_dir,
            settings.model_threads,
        )
        return embedder, []
    except Exception as exc:  # the service still answers BM25 searches without a model
        log.error("embedding model could not be loaded: %s", exc)
        return None, [NO_MODEL.format(exc)]


def load_reranker(settings: Settings, retriever: Retriever) -> None:
    """Load the cross-encoder off the start-up path; searches rerank once it is in."""
    if not settings.reranker_model:
        retriever.reranker_problem = "no reranker configured (STRATA_RERANKER_MODEL is empty)"
        return
    from service.stores.reranker import open_reranker

    try:
        reranker = open_reranker(
            settings.reranker_model,
            settings.reranker_backend,
            settings.model_cache_dir,
            threads=settings.model_threads,
            max_length=settings.rerank_max_tokens,
        )
        retriever.reranker = reranker
        retriever.reranker_problem = None
        log.info("reranker %s loaded (%s)", settings.reranker_model, reranker.backend)
    except Exception as exc:  # run without reranking, and say so
        log.error("reranker %s could not be loaded: %s", settings.reranker_model, exc)
        retriever.reranker_problem = f"reranker {settings.reranker_model} unavailable ({exc})"


def open_or_reset(
    name: str, path: Path, opener: Callable[[], T], forget: Callable[[], None] | None = None
) -> T:
    """Open a derived store; if its files are unreadable, set them aside and start empty
    (the ledger refills it). ``forget`` drops any client cached for the broken files."""
    try:
        return opener()
    except Exception as exc:
        aside = path.with_name(f"{path.name}.unreadable-{int(time.time())}")
        log.error("%s at %s is unreadable (%s); moved to %s, rebuilding", name, path, exc, aside)
        if path.exists():
            shutil.move(str(path), str(aside))
        if forget is not None:
            forget()
        return opener()


def open_resources(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    clock: Callable[[], float] = time.time,
    new_id: Callable[[], str] = new_entry_id,
) -> Resources:
    """Open every store under ``settings.data_dir``, finish interrupted writes, and
    rebuild an index that does not match the ledger."""
    degraded: list[str] = []
    if embedder is None:
        embedder, degraded = load_embedder(settings)
    data = settings.data_dir
    data.mkdir(parents=True, exist_ok=True)
    ledger = SqliteLedger(data / "ledger.sqlite3")
    if settings.chroma_url:
        vectors = ChromaVectorStore(connect(data, settings.chroma_url))
    else:
        vectors = open_or_reset(
            "Chroma", data / "chroma", lambda: ChromaVectorStore(connect(data)), forget_clients
        )
    keywords = open_or_reset(
        "Tantivy", data / "tantivy", lambda: TantivyKeywordStore(data / "tantivy")
    )
    cache: QueryCache[SearchOutcome] = QueryCache(
        settings.query_cache_size, settings.query_cache_seconds, clock
    )
    memory = Memory(
        ledger,
        vectors,
        keywords,
        embedder,
        chunk_words=settings.chunk_words,
        chunk_overlap=settings.chunk_overlap,
        clock=clock,
        on_change=cache.invalidate,
    )
    retriever = Retriever(
        ledger,
        vectors,
        keywords,
        embedder,
        rrf_k=settings.rrf_k,
        weights={"bm25": settings.bm25_weight, "vector": settings.vector_weight},
        candidates=settings.candidates,
        rerank_candidates=settings.rerank_candidates,
        rerank_default=settings.rerank == "on",
        weighting=Weighting(settings.tier_weights, settings.c_recency_days),
        mmr_lambda=settings.mmr_lambda,
        fusion=settings.fusion,
        keyword_share=settings.keyword_share,
        cache=cache,
    )
    interactions = SqliteInteractionLog(data / "interactions.sqlite3")
    answerer = Answerer(
        retriever,
        embedder,
        interactions,
        AnswerPolicy(
            threshold=settings.strong_match_threshold,
            weights=settings.answer_weights,
            type_weights=settings.type_weights,
            freshness_days=settings.freshness_days,
        ),
        new_id=new_id,
        routine_similarity=settings.routine_similarity,
        routine_min_similar=settings.routine_min_similar,
    )
    memory.recover()
    if not memory.indexes_match_ledger():
        log.warning("indexes do not match the ledger; rebuilding them from it")
        memory.rebuild()
    memory.backfill()
    catalog = SqliteCatalog(data / "catalog.sqlite3")
    collections = Collections(
        catalog,
        memory,
        list_files,
        chunk_words=settings.chunk_words,
        chunk_overlap=settings.chunk_overlap,
        clock=clock,
    )
    return Resources(
        settings=settings,
        catalog=catalog,
        collections=collections,
        keys=KeyRing.load(settings.api_keys, settings.api_keys_file),
        ledger=ledger,
        vectors=vectors,
        keywords=keywords,
        embedder=embedder,
        memory=memory,
        retriever=retriever,
        interactions=interactions,
        answerer=answerer,
        policy=ExpiryPolicy(settings.c_ttl_days, settings.ttl_by_chain_type),
        jobs=lifecycle_jobs(settings, memory, collections, clock),
        rebuilder=Rebuilder(memory, clock),
        clock=clock,
        new_id=new_id,
        degraded=degraded,
    )


def lifecycle_jobs(
    settings: Settings, memory: Memory, collections: Collections, clock: Callable[[], float]
) -> Jobs:
    jobs = Jobs(clock)
    jobs.add(
        "expire_c_tier", settings.expire_c_cron, lambda: lifecycle.expire_c_tier(memory, clock())
    )
    jobs.add(
        "archive_e_tier",
        settings.archive_e_cron,
        lambda: lifecycle.archive_e_tier(
            memory, clock(), settings.e_archive_days, settings.e_delete_days
        ),
    )
    jobs.add("optimize_indexes", settings.optimize_cron, lambda: lifecycle.optimize_indexes(memory))
    jobs.add(
        "backfill_embeddings", settings.backfill_cron, lambda: lifecycle.backfill_embeddings(memory)
    )
    if settings.rescan_cron:
        jobs.add(
            "rescan_collections",
            settings.rescan_cron,
            lambda: lifecycle.rescan_collections(collections),
        )
    return jobs
