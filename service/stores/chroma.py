"""Vector store on Chroma: a cosine collection per namespace and embedded tier, one record
per chunk."""

from __future__ import annotations

import functools
import hashlib
import shutil
import sqlite3
import threading
import uuid
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlparse

import chromadb
import httpx
from chromadb.config import Settings as ChromaSettings
from chromadb.errors import InternalError, NotFoundError

from service.domain.entries import EMBEDDED_TIERS, Chunk, StoredEntry, Tier, key_namespace
from service.domain.errors import EngineUnavailable
from service.domain.model import Filters, Hit

P = ParamSpec("P")
R = TypeVar("R")

NEVER = 2**62
"""Stand-in ``expires_at`` for entries that never expire, so the expiry sweep's range
delete never matches them."""


UNREACHABLE = (httpx.TransportError, ConnectionError, TimeoutError, InternalError)
"""What a Chroma server that is away, refusing, slow or failing raises."""


def connect(data_dir: Path, url: str = "", *, timeout: float = 10.0) -> Any:
    """An embedded client in ``data_dir/chroma``, or an HTTP client for a Chroma server
    whose every request gives up after ``timeout`` seconds."""
    settings = ChromaSettings(anonymized_telemetry=False)
    if not url:
        return chromadb.PersistentClient(path=str(data_dir / "chroma"), settings=settings)
    parsed = urlparse(url)
    client = chromadb.HttpClient(
        host=parsed.hostname or "localhost",
        port=parsed.port or (443 if parsed.scheme == "https" else 8000),
        ssl=parsed.scheme == "https",
        settings=settings,
    )
    # chromadb's HTTP session waits without end (httpx.Client(timeout=None)); bound it.
    session = getattr(getattr(client, "_server", None), "_session", None)
    if isinstance(session, httpx.Client):
        session.timeout = httpx.Timeout(timeout, connect=min(timeout, 3.0))
    return client


def reachable(method: Callable[P, R]) -> Callable[P, R]:
    """``method`` with a server that cannot be reached reported as the vector store's
    ``EngineUnavailable``."""

    @functools.wraps(method)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except UNREACHABLE as exc:
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise EngineUnavailable("vector store", detail or type(exc).__name__) from exc

    return call


def forget_clients() -> None:
    """Drop the clients Chroma caches per path, so a path can be opened afresh."""
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient.clear_system_cache()


class ChromaVectorStore:
    """One Chroma collection per namespace and tier, so a search needs no namespace filter.

    A filtered Chroma query costs several times an unfiltered one (measured on 2,000
    vectors: 1.2 ms without a ``where`` clause, 9-13 ms with one), so the common search
    sends none: expiry is checked by the caller against the ledger, and only a search
    with speaker, chain type, tags, kind or time filters sends a ``where`` clause.
    """

    def __init__(
        self, client: Any, prefix: str = "strata", *, shared: bool = False, path: Path | None = None
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.shared = shared
        self.path = path
        """The folder of an embedded client's files (None for a server's)."""
        """Whether other processes (the replicas of a cluster) write to the server too: then
        a collection this one has not seen is looked for on the server, not taken as none."""
        self._collections: dict[tuple[str, Tier], Any] = {}
        self._lock = threading.Lock()
        for collection in self.client.list_collections():
            if collection.name in (f"{prefix}_A", f"{prefix}_C"):
                # One collection per tier, as the first releases kept them: the ledger
                # holds every vector, so a rebuild at start refills the new layout.
                self.client.delete_collection(collection.name)
            else:
                self._know(collection)

    def _know(self, collection: Any) -> None:
        meta = collection.metadata or {}
        if collection.name.startswith(f"{self.prefix}_") and "namespace" in meta:
            self._collections[(str(meta["namespace"]), meta["tier"])] = collection

    def _name(self, namespace: str, tier: Tier) -> str:
        digest = hashlib.blake2b(namespace.encode(), digest_size=10).hexdigest()
        return f"{self.prefix}_{tier}_{digest}"

    def _collection(self, namespace: str, tier: Tier, create: bool = True) -> Any:
        """The collection of a namespace and tier; None if it has none and not ``create``."""
        where = (namespace, tier)
        with self._lock:
            found = self._collections.get(where)
            if found is None and create:
                found = self.client.get_or_create_collection(
                    self._name(namespace, tier),
                    metadata={"hnsw:space": "cosine", "namespace": namespace, "tier": tier},
                    embedding_function=None,
                )
                self._collections[where] = found
        if found is None and self.shared:
            try:
                found = self.client.get_collection(
                    self._name(namespace, tier), embedding_function=None
                )
            except NotFoundError:
                return None
            with self._lock:
                self._collections[where] = found
        return found

    def _all(self, tier: Tier | None = None) -> list[Any]:
        if self.shared:  # with the collections other replicas made since
            listed = self.client.list_collections()
            with self._lock:
                for collection in listed:
                    self._know(collection)
        with self._lock:
            return [c for (_, t), c in self._collections.items() if tier in (None, t)]

    @reachable
    def upsert(self, stored: Sequence[StoredEntry]) -> None:
        groups: dict[tuple[str, Tier], list[tuple[StoredEntry, Chunk]]] = {}
        for s in stored:
            if s.entry.tier in EMBEDDED_TIERS:
                groups.setdefault((s.entry.namespace, s.entry.tier), []).extend(
                    (s, c) for c in s.chunks
                )
        for (namespace, tier), records in groups.items():
            collection = self._collection(namespace, tier)
            for start in range(0, len(records), 2000):
                part = records[start : start + 2000]
                collection.upsert(
                    ids=[f"{c.key}#{c.number}" for _, c in part],
                    embeddings=[list(c.vector or ()) for _, c in part],
                    metadatas=[_metadata(s, c.number) for s, c in part],
                )

    @reachable
    def delete(self, keys: Sequence[str]) -> None:
        by_namespace: dict[str, list[str]] = {}
        for key in keys:
            by_namespace.setdefault(key_namespace(key), []).append(key)
        for namespace, mine in by_namespace.items():
            for tier in EMBEDDED_TIERS:
                collection = self._collection(namespace, tier, create=False)
                if collection is None:
                    continue
                for start in range(0, len(mine), 500):
                    collection.delete(where={"key": {"$in": mine[start : start + 500]}})

    @reachable
    def search(
        self, tier: Tier, vector: Sequence[float], filters: Filters, limit: int
    ) -> list[Hit]:
        collection = self._collection(filters.namespace, tier, create=False)
        if collection is None:
            return []
        where = _where(filters)
        records, hits = _nearest(collection, vector, where, limit)
        if len(hits) < limit and records == limit:
            # Chunks of one entry filled places: ask for more so `limit` entries remain.
            _, hits = _nearest(collection, vector, where, limit * 2)
        return hits[:limit]

    @reachable
    def count(self, tier: Tier) -> int:
        return sum(int(c.count()) for c in self._all(tier))

    @reachable
    def entry_keys(self) -> set[str]:
        found: set[str] = set()
        for collection in self._all():
            offset = 0
            while page := collection.get(include=[], limit=5000, offset=offset)["ids"]:
                found.update(record.rsplit("#", 1)[0] for record in page)
                offset += len(page)
        return found

    @reachable
    def delete_expired(self, now: float) -> None:
        """Drop tier C vectors whose ``expires_at`` has passed."""
        for collection in self._all("C"):
            collection.delete(where={"expires_at": {"$lte": now}})

    @reachable
    def erase_namespace(self, namespace: str) -> None:
        """Drop the namespace's collections; with the files at hand (an embedded client),
        compact them: Chroma keeps the records of a dropped collection in the free pages
        of its SQLite file and leaves its vector segment's folder behind."""
        for tier in EMBEDDED_TIERS:
            collection = self._collection(namespace, tier, create=False)
            with self._lock:
                self._collections.pop((namespace, tier), None)
            if collection is not None:
                # Records first: dropping a collection leaves the rows of list-valued
                # metadata (tags) behind, for a later record to inherit
                # (https://github.com/chroma-core/chroma/issues/7594); deleting records
                # removes them.
                collection.delete(where={"namespace": namespace})
                self.client.delete_collection(collection.name)
        if self.path is not None:
            compact_embedded(self.path)

    @reachable
    def clear(self) -> None:
        with self._lock:
            for collection in self._collections.values():
                self.client.delete_collection(collection.name)
            self._collections.clear()

    @reachable
    def health(self) -> str:
        self.client.heartbeat()
        return "ok"


def compact_embedded(path: Path) -> None:
    """Give back the space of dropped collections in an embedded Chroma's folder: its
    SQLite file rewritten, and the segment folders no collection uses any more removed."""
    database = path / "chroma.sqlite3"
    if not database.exists():
        return
    with closing(sqlite3.connect(database, timeout=30)) as conn:
        used = {row[0] for row in conn.execute("SELECT id FROM segments")}
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for folder in path.iterdir():
        if folder.is_dir() and _is_uuid(folder.name) and folder.name not in used:
            shutil.rmtree(folder, ignore_errors=True)


def _is_uuid(name: str) -> bool:
    try:
        uuid.UUID(name)
    except ValueError:
        return False
    return True


def _metadata(stored: StoredEntry, chunk: int) -> dict[str, Any]:
    e = stored.entry
    meta: dict[str, Any] = {
        "key": e.key,
        "chunk": chunk,
        "namespace": e.namespace,
        "kind": e.kind,
        "timestamp": e.timestamp,
        "expires_at": e.expires_at if e.expires_at is not None else NEVER,
    }
    if e.speaker is not None:
        meta["speaker"] = e.speaker
    if e.chain_type is not None:
        meta["chain_type"] = e.chain_type
    if e.tags:
        meta["tags"] = list(e.tags)
    return meta


def _nearest(
    collection: Any, vector: Sequence[float], where: dict[str, Any] | None, n: int
) -> tuple[int, list[Hit]]:
    """The ``n`` chunks nearest ``vector`` (how many were found) and their entries, each
    once, with its nearest chunk, nearest first."""
    found = collection.query(
        query_embeddings=[list(vector)], n_results=n, where=where, include=["distances"]
    )
    records = found["ids"][0]
    hits: dict[str, Hit] = {}
    for record, distance in zip(records, found["distances"][0], strict=True):
        key, _, chunk = record.rpartition("#")
        if key not in hits:
            hits[key] = Hit(key, 1.0 - float(distance), int(chunk))
    return len(records), list(hits.values())


def _where(f: Filters) -> dict[str, Any] | None:
    """The filters a collection of one namespace still needs; None for none (the fast
    query). Expiry is left to the caller: archived entries have no vectors here, expired
    ones only until the expiry job runs."""
    conditions: list[dict[str, Any]] = []
    if f.speaker is not None:
        conditions.append({"speaker": f.speaker})
    if f.chain_type is not None:
        conditions.append({"chain_type": f.chain_type})
    conditions.extend({"tags": {"$contains": tag}} for tag in f.tags)
    if f.kind is not None:
        conditions.append({"kind": f.kind})
    if f.since is not None:
        conditions.append({"timestamp": {"$gte": f.since}})
    if f.until is not None:
        conditions.append({"timestamp": {"$lte": f.until}})
    if not conditions:
        return None
    return conditions[0] if len(conditions) == 1 else {"$and": conditions}
