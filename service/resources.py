"""Heavy resources (model, stores) opened at start-up and closed in reverse order."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from service.auth import KeyRing
from service.domain.memory import Memory
from service.domain.ports import Embedder
from service.domain.retrieval import Retriever
from service.domain.tiers import ExpiryPolicy
from service.settings import Settings
from service.stores.chroma import ChromaVectorStore, connect
from service.stores.ledger import SqliteLedger
from service.stores.tantivy import TantivyKeywordStore

log = logging.getLogger("strata")


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
    clock: Callable[[], float] = time.time
    new_id: Callable[[], str] = new_entry_id
    degraded: list[str] = field(default_factory=list)

    def close(self) -> None:
        self.keywords.close()
        self.ledger.close()


def load_embedder(settings: Settings) -> tuple[Embedder | None, list[str]]:
    from service.stores.embedder import SentenceTransformerEmbedder

    try:
        return SentenceTransformerEmbedder(settings.embedding_model), []
    except Exception as exc:  # the service still answers BM25 searches without a model
        log.error("embedding model could not be loaded: %s", exc)
        return None, [f"embedding model unavailable ({exc}); BM25 only, A/C writes refused"]


def open_resources(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    clock: Callable[[], float] = time.time,
    new_id: Callable[[], str] = new_entry_id,
) -> Resources:
    """Open every store under ``settings.data_dir`` and finish interrupted writes."""
    degraded: list[str] = []
    if embedder is None:
        embedder, degraded = load_embedder(settings)
    data = settings.data_dir
    data.mkdir(parents=True, exist_ok=True)
    ledger = SqliteLedger(data / "ledger.sqlite3")
    vectors = ChromaVectorStore(connect(data, settings.chroma_url))
    keywords = TantivyKeywordStore(data / "tantivy")
    memory = Memory(
        ledger,
        vectors,
        keywords,
        embedder,
        chunk_words=settings.chunk_words,
        chunk_overlap=settings.chunk_overlap,
    )
    retriever = Retriever(
        ledger,
        vectors,
        keywords,
        embedder,
        rrf_k=settings.rrf_k,
        weights={"bm25": settings.bm25_weight, "vector": settings.vector_weight},
        candidates=settings.candidates,
    )
    memory.recover()
    return Resources(
        settings=settings,
        keys=KeyRing.load(settings.api_keys, settings.api_keys_file),
        ledger=ledger,
        vectors=vectors,
        keywords=keywords,
        embedder=embedder,
        memory=memory,
        retriever=retriever,
        policy=ExpiryPolicy(settings.c_ttl_days, settings.ttl_by_chain_type),
        clock=clock,
        new_id=new_id,
        degraded=degraded,
    )
