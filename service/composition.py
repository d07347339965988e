"""The composition root: the real stores a data directory (or a Chroma server) holds."""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from service.application import Stores
from service.domain.ports import Embedder
from service.settings import Settings, StorageSettings
from service.stores.catalog import SqliteCatalog
from service.stores.chroma import ChromaVectorStore, connect, forget_clients
from service.stores.files import LocalFiles
from service.stores.interactions import SqliteInteractionLog
from service.stores.ledger import SqliteLedger
from service.stores.tantivy import TantivyKeywordStore

log = logging.getLogger("strata")
T = TypeVar("T")

NO_MODEL = (
    "embedding model unavailable ({}): searches use BM25 only; tier A and C events are "
    "stored and embedded once a model loads"
)


def open_stores(settings: Settings, *, embedder: Embedder | None = None) -> Stores:
    """Open every store under the data directory; ``embedder`` skips loading the model."""
    degraded: list[str] = []
    if embedder is None:
        embedder, degraded = load_embedder(settings)
    data = settings.storage.data_dir
    data.mkdir(parents=True, exist_ok=True)
    ledger = SqliteLedger(data / "ledger.sqlite3")
    if settings.storage.chroma_url:
        vectors = ChromaVectorStore(connect(data, settings.storage.chroma_url))
    else:
        vectors = open_or_reset(
            "Chroma", data / "chroma", lambda: ChromaVectorStore(connect(data)), forget_clients
        )
    keywords = open_or_reset(
        "Tantivy", data / "tantivy", lambda: TantivyKeywordStore(data / "tantivy")
    )
    catalog = SqliteCatalog(data / "catalog.sqlite3")
    interactions = SqliteInteractionLog(data / "interactions.sqlite3")

    def close() -> None:
        keywords.close()
        catalog.close()
        interactions.close()
        ledger.close()

    return Stores(
        ledger=ledger,
        vectors=vectors,
        keywords=keywords,
        catalog=catalog,
        interactions=interactions,
        files=LocalFiles(),
        embedder=embedder,
        degraded=degraded,
        disk_usage=lambda: disk_usage(settings.storage),
        close=close,
    )


def load_embedder(settings: Settings) -> tuple[Embedder | None, list[str]]:
    """The configured embedding model, or None and why."""
    from service.stores.embedder import open_embedder

    try:
        embedder = open_embedder(
            settings.models.embedding_model,
            settings.models.embedding_backend,
            settings.storage.model_cache_dir,
            settings.models.model_threads,
        )
        return embedder, []
    except Exception as exc:  # the service still answers BM25 searches without a model
        log.error("embedding model could not be loaded: %s", exc)
        return None, [NO_MODEL.format(exc)]


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


def disk_usage(storage: StorageSettings) -> dict[str, int | None]:
    """Bytes on disk per store; None for one that lives elsewhere (a Chroma server)."""
    data = storage.data_dir
    return {
        "ledger": sum(_size(p) for p in data.glob("ledger.sqlite3*")),
        "tantivy": _size(data / "tantivy"),
        "chroma": None if storage.chroma_url else _size(data / "chroma"),
    }


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
