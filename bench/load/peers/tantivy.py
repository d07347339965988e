"""Tantivy alone: BM25 over English-stemmed text, namespace and expiry as filters."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bench.common import tree_bytes
from bench.load.peers.base import MS, NEVER, STOPWORDS, BuildStats, Doc, Found, PeerSystem, RowId


class TantivyPeer:
    """An index in ``workdir / "tantivy"`` storing each entry's row and text."""

    def __init__(self, workdir: Path, stats: BuildStats, row_id: RowId) -> None:
        import tantivy

        self.stats = stats
        self.row_id = row_id
        self._local = threading.local()
        b = tantivy.SchemaBuilder()
        b.add_integer_field("row", stored=True, indexed=False)
        b.add_text_field("namespace", tokenizer_name="raw")
        b.add_text_field("text", tokenizer_name="en_stem", stored=True)
        b.add_integer_field("expires_at", indexed=True, fast=True)
        self.schema = b.build()
        self.path = workdir / "tantivy"
        self.path.mkdir()
        self.index = tantivy.Index(self.schema, path=str(self.path))
        self._writer: Any = self.index.writer(heap_size=256 * 1024 * 1024, num_threads=1)

    def add_texts(self, docs: Sequence[Doc]) -> None:
        import tantivy

        started = time.perf_counter()
        for d in docs:
            doc = tantivy.Document()
            doc.add_integer("row", d.row)
            doc.add_text("namespace", d.namespace)
            doc.add_text("text", d.text)
            exp = int(d.expires_at * MS) if d.expires_at is not None else NEVER
            doc.add_integer("expires_at", exp)
            self._writer.add_document(doc)
        self.stats.add("tantivy", time.perf_counter() - started)

    def finish(self) -> None:
        started = time.perf_counter()
        self._writer.commit()
        self._writer.wait_merging_threads()
        self.index.reload()
        self.stats.add("tantivy", time.perf_counter() - started)

    def disk_bytes(self) -> dict[str, int]:
        return {"tantivy": tree_bytes(self.path) or 0}

    def bm25(self, text: str, namespace: str, limit: int) -> list[Found]:
        import tantivy
        from tantivy import Occur, Query

        terms = list(dict.fromkeys(self._analyzer().analyze(text)))
        if not terms:
            return []
        s = self.schema
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
        searcher = self.index.searcher()
        out = []
        for _score, address in searcher.search(query, limit).hits:
            doc = searcher.doc(address)
            out.append(Found(self.row_id(int(doc["row"][0])), str(doc["text"][0])))
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
        yield PeerSystem("Tantivy alone", "bm25", self.bm25)
