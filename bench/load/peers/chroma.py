"""Chroma alone: one cosine collection of the same vectors and texts, filtered as the service."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from bench.common import tree_bytes
from bench.load.peers.base import NEVER, BuildStats, Doc, Embed, Found, PeerSystem, RowId

CHROMA_BATCH = 4000


class ChromaPeer:
    """A collection in ``workdir``, or on the Chroma server at ``url`` (dropped on close)."""

    def __init__(
        self, workdir: Path, url: str, embed: Embed, stats: BuildStats, row_id: RowId
    ) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        self.workdir = workdir
        self.url = url
        self.embed = embed
        self.stats = stats
        self.row_id = row_id
        self.name = f"loadpeer_{uuid.uuid4().hex[:12]}"
        settings = ChromaSettings(anonymized_telemetry=False)
        self._client: Any
        if url:
            parsed = urlparse(url)
            self._client = chromadb.HttpClient(
                host=parsed.hostname or "localhost",
                port=parsed.port or 8000,
                ssl=parsed.scheme == "https",
                settings=settings,
            )
        else:
            self._client = chromadb.PersistentClient(
                path=str(workdir / "chroma"), settings=settings
            )
        self.collection = self._client.create_collection(
            self.name, metadata={"hnsw:space": "cosine"}, embedding_function=None
        )

    def add_vectors(self, embedded: Sequence[Doc], vectors: np.ndarray) -> None:
        started = time.perf_counter()
        for start in range(0, len(embedded), CHROMA_BATCH):
            part = embedded[start : start + CHROMA_BATCH]
            self.collection.add(
                ids=[str(d.row) for d in part],
                embeddings=vectors[start : start + len(part)],
                documents=[d.text for d in part],
                metadatas=[
                    {
                        "namespace": d.namespace,
                        "expires_at": d.expires_at if d.expires_at is not None else NEVER,
                    }
                    for d in part
                ],
            )
        self.stats.add("chroma", time.perf_counter() - started)

    def close(self) -> None:
        if self.url:
            # The server may be gone; there is nothing else to clean up.
            with contextlib.suppress(Exception):
                self._client.delete_collection(self.name)

    def disk_bytes(self) -> dict[str, int]:
        return {} if self.url else {"chroma": tree_bytes(self.workdir / "chroma") or 0}

    def vector(self, text: str, namespace: str, limit: int) -> list[Found]:
        query = self.embed([text])[0]
        found = self.collection.query(
            query_embeddings=[query],
            n_results=limit,
            where={"$and": [{"namespace": namespace}, {"expires_at": {"$gt": time.time()}}]},
            include=["documents", "distances"],
        )
        return [
            Found(self.row_id(int(i)), str(doc))
            for i, doc in zip(found["ids"][0], found["documents"][0], strict=True)
        ]

    def systems(self) -> Iterator[PeerSystem]:
        yield PeerSystem("Chroma alone", "vector", self.vector)
