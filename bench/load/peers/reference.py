"""The reference design: brute-force NumPy cosine plus SQLite FTS5 BM25, fused by RRF."""

from __future__ import annotations

import math
import re
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from bench.load.peers.base import (
    NEVER,
    STOPWORDS,
    BuildStats,
    Doc,
    Embed,
    Found,
    PeerSystem,
    RowId,
)

FTS_TOKEN = re.compile(r"[A-Za-z0-9]+")


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


class ReferencePeer:
    """One float32 matrix of the embedded vectors, a namespace and expiry mask applied after
    the product, and an FTS5 table (``porter unicode61``) of every entry in ``workdir``."""

    def __init__(
        self,
        workdir: Path,
        ns_index: dict[str, int],
        embed: Embed,
        stats: BuildStats,
        row_id: RowId,
        *,
        rrf_k: float,
        depth: int,
    ) -> None:
        self.workdir = workdir
        self.ns_index = ns_index
        self.embed = embed
        self.stats = stats
        self.row_id = row_id
        self.rrf_k = rrf_k
        self.depth = depth
        self._local = threading.local()
        self._vectors: list[np.ndarray] = []
        self._vec_rows: list[np.ndarray] = []
        self._vec_ns: list[np.ndarray] = []
        self._vec_exp: list[np.ndarray] = []
        self.matrix = np.zeros((0, 384), dtype=np.float32)
        self.vec_rows = np.zeros(0, dtype=np.int64)
        self.vec_ns = np.zeros(0, dtype=np.int16)
        self.vec_exp = np.zeros(0, dtype=np.float64)
        self.fts_path = workdir / "reference.sqlite3"
        db = sqlite3.connect(self.fts_path)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(
            "CREATE VIRTUAL TABLE docs USING fts5("
            "text, ns, expires UNINDEXED, tokenize='porter unicode61')"
        )
        db.commit()
        self._fts_writer: sqlite3.Connection | None = db

    # ------------------------------------------------------------------ build

    def add_texts(self, docs: Sequence[Doc]) -> None:
        if self._fts_writer is None:
            return
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

    def add_vectors(self, embedded: Sequence[Doc], vectors: np.ndarray) -> None:
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

    def finish(self) -> None:
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

    def disk_bytes(self) -> dict[str, int]:
        return {
            "reference (FTS5 file)": sum(
                p.stat().st_size for p in self.workdir.glob("reference.sqlite3*")
            ),
            "reference (NumPy matrix, in memory)": int(self.matrix.nbytes),
        }

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

    def _hydrate(self, rows: Sequence[int]) -> list[Found]:
        if not rows:
            return []
        marks = ",".join("?" * len(rows))
        texts = dict(
            self._db().execute(f"SELECT rowid, text FROM docs WHERE rowid IN ({marks})", rows)
        )
        return [Found(self.row_id(r), texts.get(r, "")) for r in rows]

    def bm25(self, text: str, namespace: str, limit: int) -> list[Found]:
        return self._hydrate(self._fts_rows(text, namespace, limit))

    def vector(self, text: str, namespace: str, limit: int) -> list[Found]:
        return self._hydrate(self._numpy_rows(text, namespace, limit))

    def hybrid(self, text: str, namespace: str, limit: int) -> list[Found]:
        depth = max(3 * limit, self.depth)
        lists = [self._fts_rows(text, namespace, depth), self._numpy_rows(text, namespace, depth)]
        return self._hydrate(rrf(lists, self.rrf_k, limit))

    def systems(self) -> Iterator[PeerSystem]:
        yield PeerSystem("reference: NumPy cosine + FTS5 BM25, RRF", "hybrid", self.hybrid)
        yield PeerSystem("reference: NumPy brute-force cosine", "vector", self.vector)
        yield PeerSystem("reference: SQLite FTS5 BM25", "bm25", self.bm25)
