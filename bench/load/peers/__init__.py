"""Peer search systems for ``bench.load``, built on the same generated data as the service.

- **reference** (``reference.py``): the design strata is measured against. Brute-force NumPy
  cosine over every embedded vector (one float32 matrix, a namespace and expiry mask applied
  after the product) plus SQLite FTS5 BM25 (``porter unicode61``), fused by weighted
  reciprocal rank fusion with the service's k and candidate depth, then the top hits read
  back from SQLite.
- **chroma** (``chroma.py``): Chroma alone, one cosine collection holding the same vectors
  and the texts, queried with the same namespace and expiry filter.
- **tantivy** (``tantivy.py``): Tantivy alone, BM25 over English-stemmed text, with the
  namespace and expiry as filters and the text stored in the index.

Every peer indexes what the service indexes: the BM25 peers every entry, as ``speaker: text``;
the vector peers tier A and C entries that are live when they are built (the service drops
expired tier C vectors with its expiry job), embedded as ``speaker: text`` with
all-MiniLM-L6-v2 (run as the service runs it, ``STRATA_EMBEDDING_BACKEND``), once, and
shared. Every search applies the namespace and "not expired"
filters, as the service does, and returns the ``limit`` best entries with their text. A
vector search embeds its query with the same model inside the timed call, as the service does.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.load.peers.base import (
    BuildStats,
    Doc,
    Found,
    PeerSystem,
    entry_id,
    load_embedder,
)
from bench.load.peers.chroma import ChromaPeer
from bench.load.peers.reference import ReferencePeer
from bench.load.peers.tantivy import TantivyPeer

__all__ = [
    "BuildStats",
    "Doc",
    "Found",
    "PeerSystem",
    "Peers",
    "build",
    "describe_build",
    "entry_id",
]


class Peers:
    """The peers named in ``which``, built in ``workdir`` from one pass over the documents."""

    def __init__(
        self,
        workdir: Path,
        namespaces: Sequence[str],
        which: Sequence[str],
        *,
        rrf_k: float = 10.0,
        depth: int = 50,
        chroma_url: str = "",
        backend: str = "onnx-int8",
    ) -> None:
        self.stats = BuildStats()
        self.embed, self.model_name = load_embedder(backend, workdir / "models")
        self.row_tiers = bytearray()
        """Tier letter of each row, in stream order: ids are ``entry_id(tier, row)``."""
        workdir.mkdir(parents=True, exist_ok=True)
        self.reference = (
            ReferencePeer(
                workdir,
                {ns: i for i, ns in enumerate(namespaces)},
                self.embed,
                self.stats,
                self._id,
                rrf_k=rrf_k,
                depth=depth,
            )
            if "reference" in which
            else None
        )
        self.chroma = (
            ChromaPeer(workdir, chroma_url, self.embed, self.stats, self._id)
            if "chroma" in which
            else None
        )
        self.tantivy = TantivyPeer(workdir, self.stats, self._id) if "tantivy" in which else None

    def _id(self, row: int) -> str:
        return entry_id(chr(self.row_tiers[row]), row)

    def add(self, docs: Sequence[Doc], now: float) -> None:
        """Index a batch of documents in every peer; embed the live tier A and C ones."""
        self.stats.docs += len(docs)
        for d in docs:
            if d.row != len(self.row_tiers) or d.id != entry_id(d.tier, d.row):
                raise ValueError(f"documents must come in stream order with ids from entry_id: {d}")
            self.row_tiers.append(ord(d.tier))
        if self.reference is not None:
            self.reference.add_texts(docs)
        if self.tantivy is not None:
            self.tantivy.add_texts(docs)
        embedded = [
            d for d in docs if d.tier in ("A", "C") and (d.expires_at is None or d.expires_at > now)
        ]
        if not embedded or (self.reference is None and self.chroma is None):
            return
        started = time.perf_counter()
        vectors = self.embed([d.text for d in embedded])
        self.stats.add("embedding", time.perf_counter() - started)
        self.stats.vectors += len(embedded)
        if self.reference is not None:
            self.reference.add_vectors(embedded, vectors)
        if self.chroma is not None:
            self.chroma.add_vectors(embedded, vectors)

    def finish(self) -> None:
        """Commit what is buffered; after this the peers are ready to search."""
        if self.reference is not None:
            self.reference.finish()
        if self.tantivy is not None:
            self.tantivy.finish()

    def close(self) -> None:
        if self.chroma is not None:
            self.chroma.close()

    def disk_bytes(self) -> dict[str, int]:
        sizes: dict[str, int] = {}
        for peer in (self.reference, self.chroma, self.tantivy):
            if peer is not None:
                sizes.update(peer.disk_bytes())
        return sizes

    def systems(self) -> Iterator[PeerSystem]:
        """Each measured peer: a name, the service mode it stands against, its search."""
        for peer in (self.reference, self.chroma, self.tantivy):
            if peer is not None:
                yield from peer.systems()


def build(
    peers: Peers, docs: Iterable[Doc], now: float, batch: int = 2000, progress: Any = None
) -> None:
    """Feed ``docs`` to ``peers`` in batches, then finish them."""
    chunk: list[Doc] = []
    for doc in docs:
        chunk.append(doc)
        if len(chunk) >= batch:
            peers.add(chunk, now)
            chunk = []
            if progress is not None:
                progress(peers.stats.docs)
    if chunk:
        peers.add(chunk, now)
    peers.finish()
    if progress is not None:
        progress(peers.stats.docs)


def describe_build(stats: BuildStats) -> Mapping[str, Any]:
    return {"docs": stats.docs, "vectors": stats.vectors, "seconds": dict(stats.seconds)}
