"""Vector store on Chroma: one cosine collection per embedded tier, one record per chunk."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import chromadb
from chromadb.config import Settings as ChromaSettings

from service.domain.models import EMBEDDED_TIERS, Filters, Hit, StoredEntry, Tier

NEVER = 2**62
"""Stand-in ``expires_at`` for entries that never expire, so one range filter covers all."""


def connect(data_dir: Path, url: str = "") -> Any:
    """An embedded client in ``data_dir/chroma``, or an HTTP client for a Chroma server."""
    settings = ChromaSettings(anonymized_telemetry=False)
    if not url:
        return chromadb.PersistentClient(path=str(data_dir / "chroma"), settings=settings)
    parsed = urlparse(url)
    return chromadb.HttpClient(
        host=parsed.hostname or "localhost",
        port=parsed.port or (443 if parsed.scheme == "https" else 8000),
        ssl=parsed.scheme == "https",
        settings=settings,
    )


def forget_clients() -> None:
    """Drop the clients Chroma caches per path, so a path can be opened afresh."""
    from chromadb.api.client import SharedSystemClient

    SharedSystemClient.clear_system_cache()


class ChromaVectorStore:
    def __init__(self, client: Any, prefix: str = "strata") -> None:
        self.client = client
        self.prefix = prefix
        self._collections = {tier: self._open(tier) for tier in EMBEDDED_TIERS}

    def _open(self, tier: Tier) -> Any:
        return self.client.get_or_create_collection(
            f"{self.prefix}_{tier}",
            metadata={"hnsw:space": "cosine"},
            embedding_function=None,
        )

    def upsert(self, stored: Sequence[StoredEntry]) -> None:
        for tier in EMBEDDED_TIERS:
            records = [(s, c) for s in stored if s.entry.tier == tier for c in s.chunks]
            for start in range(0, len(records), 2000):
                part = records[start : start + 2000]
                self._collections[tier].upsert(
                    ids=[f"{c.key}#{c.number}" for _, c in part],
                    embeddings=[list(c.vector or ()) for _, c in part],
                    metadatas=[_metadata(s, c.number) for s, c in part],
                )

    def delete(self, keys: Sequence[str]) -> None:
        if not keys:
            return
        for collection in self._collections.values():
            for start in range(0, len(keys), 500):
                collection.delete(where={"key": {"$in": list(keys[start : start + 500])}})

    def search(
        self, tier: Tier, vector: Sequence[float], filters: Filters, limit: int
    ) -> list[Hit]:
        collection = self._collections[tier]
        # Several chunks of one entry can match; ask for more so `limit` entries remain.
        found = collection.query(
            query_embeddings=[list(vector)],
            n_results=limit * 2,
            where=_where(filters),
            include=["metadatas", "distances"],
        )
        hits: dict[str, Hit] = {}
        for meta, distance in zip(found["metadatas"][0], found["distances"][0], strict=True):
            key = str(meta["key"])
            if key not in hits:
                hits[key] = Hit(key, 1.0 - float(distance), int(meta["chunk"]))
        return list(hits.values())[:limit]

    def count(self, tier: Tier) -> int:
        return int(self._collections[tier].count())

    def entry_keys(self) -> set[str]:
        found: set[str] = set()
        for collection in self._collections.values():
            offset = 0
            while page := collection.get(include=[], limit=5000, offset=offset)["ids"]:
                found.update(record.rsplit("#", 1)[0] for record in page)
                offset += len(page)
        return found

    def delete_expired(self, now: float) -> None:
        """Drop tier C vectors whose ``expires_at`` has passed."""
        self._collections["C"].delete(where={"expires_at": {"$lte": now}})

    def clear(self) -> None:
        for tier in EMBEDDED_TIERS:
            self.client.delete_collection(f"{self.prefix}_{tier}")
        self._collections = {tier: self._open(tier) for tier in EMBEDDED_TIERS}

    def health(self) -> str:
        self.client.heartbeat()
        return "ok"


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


def _where(f: Filters) -> dict[str, Any]:
    # Archived entries have no vectors here; expired ones only until the expiry job runs.
    conditions: list[dict[str, Any]] = [{"namespace": f.namespace}]
    if not f.include_archived:
        conditions.append({"expires_at": {"$gt": f.now}})
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
    return conditions[0] if len(conditions) == 1 else {"$and": conditions}
