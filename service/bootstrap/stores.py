"""The real stores, in a data directory (embedded) or shared by the replicas of a cluster (a
Postgres database and a Chroma server, with a Tantivy index and a checkpoint of the change
log in each replica's data directory)."""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from service.application.services import Stores
from service.bootstrap.models import load_embedder
from service.domain.ports import Embedder
from service.net.addresses import redacted
from service.remote.upstream import HttpUpstream
from service.settings import Settings, StorageSettings
from service.stores.checkpoint import FileCheckpoint
from service.stores.chroma import ChromaVectorStore, connect, forget_clients
from service.stores.durable import LEDGER, DurableStores, open_sqlite
from service.stores.files import LocalFiles
from service.stores.tantivy import TantivyKeywordStore

log = logging.getLogger("strata")
T = TypeVar("T")

CHECKPOINT = "checkpoint.json"
"""A replica's place in the change log of the ledger it shares, beside its Tantivy index."""


def open_stores(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    clock: Callable[[], float] = time.time,
) -> Stores:
    """Open every store; ``embedder`` skips loading the model. ``clock`` times the ledger's
    changes."""
    degraded: list[str] = []
    if embedder is None:
        embedder, degraded = load_embedder(settings)
    storage = settings.storage
    data = storage.data_dir
    data.mkdir(parents=True, exist_ok=True)
    durable = open_durable(storage, clock)
    try:
        if storage.chroma_url:
            vectors = ChromaVectorStore(
                connect(data, storage.chroma_url, timeout=storage.engine_timeout),
                shared=storage.shared,
            )
        else:
            vectors = open_or_reset(
                "Chroma",
                data / "chroma",
                lambda: ChromaVectorStore(connect(data), path=data / "chroma"),
                forget_clients,
            )
        keywords = open_or_reset(
            "Tantivy", data / "tantivy", lambda: TantivyKeywordStore(data / "tantivy")
        )
    except BaseException:
        durable.close()
        raise

    upstream = open_upstream(settings)

    def close() -> None:
        if upstream is not None:
            upstream.close()
        keywords.close()
        durable.close()

    return Stores(
        ledger=durable.ledger,
        vectors=vectors,
        keywords=keywords,
        catalog=durable.catalog,
        interactions=durable.interactions,
        files=LocalFiles(),
        embedder=embedder,
        runs=durable.runs,
        coordination=durable.coordination,
        checkpoint=FileCheckpoint(data / CHECKPOINT) if storage.shared else None,
        degraded=degraded,
        disk_usage=lambda: disk_usage(storage),
        close=close,
        upstream=upstream,
        compaction=durable.compaction,
        signed_out=durable.signed_out,
    )


def open_upstream(settings: Settings) -> HttpUpstream | None:
    """The upstream memory service of STRATA_UPSTREAM_URL, if one is set."""
    u = settings.upstream
    if not u.url:
        return None
    log.info("upstream %s at %s", u.label, redacted(u.url))
    return HttpUpstream(u.url, name=u.label, api_key=u.key)


def open_durable(storage: StorageSettings, clock: Callable[[], float]) -> DurableStores:
    """The ledger, catalog, interaction log, run log and coordination: on the Postgres
    database of ``database_url`` when it is set, else in SQLite files of the data directory."""
    if not storage.shared:
        return open_sqlite(storage.data_dir, clock=clock)
    from service.stores.durable import open_postgres

    log.info("stores shared on %s", redacted(storage.database_url))
    return open_postgres(storage.database_url, clock=clock, timeout=storage.engine_timeout)


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
    """Bytes on disk per store; None for one that lives elsewhere (a database or a Chroma
    server)."""
    data = storage.data_dir
    return {
        "ledger": None if storage.shared else sum(_size(p) for p in data.glob(f"{LEDGER}*")),
        "tantivy": _size(data / "tantivy"),
        "chroma": None if storage.chroma_url else _size(data / "chroma"),
    }


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
