"""Keyword store on Tantivy: BM25 over English-stemmed text, filters as exact terms.

An entry is one document, or one per chunk for an entry found by passage (a digest); a
search collapses them to one hit per entry, its best, naming the chunk."""

from __future__ import annotations

import logging
import math
import shutil
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import tantivy
from tantivy import Filter, Occur, Query, TextAnalyzerBuilder, Tokenizer

from service.domain.entries import StoredEntry
from service.domain.memory.texts import keyword_texts
from service.domain.search.query import Filters, Hit

log = logging.getLogger(__name__)

NEVER = 2**62
MS = 1000
BM25_K1 = 1.2


# Words that carry no topic in the questions agents ask ("what did we decide about X?").
# Dropped from queries only: the index keeps every word.
QUERY_STOPWORDS = """
a about above after again all am an and any are as at be been before being below between
both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me
more most my myself no nor not of off on once only or other our ours ourselves out over own
same she should so some such than that the their theirs them themselves then there these
they this those through to too under until up very was we were what when where which while
who whom why will with would you your yours yourself yourselves
""".split()  # noqa: SIM905 (a word list reads best as text)


def _query_analyzer(stopwords: list[str]) -> tantivy.TextAnalyzer:
    builder = TextAnalyzerBuilder(Tokenizer.simple()).filter(Filter.remove_long(40))
    builder = builder.filter(Filter.lowercase())
    if stopwords:
        builder = builder.filter(Filter.custom_stopword(stopwords))
    return builder.filter(Filter.stemmer("english")).build()


def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_text_field("key", stored=True, tokenizer_name="raw")
    b.add_text_field("namespace", tokenizer_name="raw")
    b.add_text_field("tier", tokenizer_name="raw")
    b.add_text_field("speaker", tokenizer_name="raw")
    b.add_text_field("chain_type", tokenizer_name="raw")
    b.add_text_field("tags", tokenizer_name="raw")
    b.add_text_field("kind", tokenizer_name="raw")
    b.add_text_field("text", tokenizer_name="en_stem")
    # Who said the turn: with the previous turn in `text`, both speakers' names are there.
    b.add_text_field("speaker_text", tokenizer_name="en_stem")
    b.add_integer_field("timestamp", indexed=True, fast=True)
    b.add_integer_field("expires_at", indexed=True, fast=True)
    b.add_integer_field("archived", indexed=True)
    # Which chunk of its entry a document holds: 0 for an entry indexed whole, so the
    # documents of chunk 0 count the entries.
    b.add_integer_field("passage", indexed=True, stored=True)
    return b.build()


class TantivyKeywordStore:
    """One index for all tiers; every query is built term by term, never parsed."""

    def __init__(self, path: Path, *, heap_bytes: int = 64 * 1024 * 1024) -> None:
        self.path = path
        self.heap_bytes = heap_bytes
        self.schema = _schema()
        # The `en_stem` analysis, applied to queries, with question words dropped.
        self._analyzer = _query_analyzer(QUERY_STOPWORDS)
        self._fallback = _query_analyzer([])
        self._lock = threading.Lock()
        self._open()

    def _open(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        try:
            self.index = tantivy.Index(self.schema, path=str(self.path))
        except ValueError as exc:
            if "schema does not match" not in str(exc):
                raise
            # An index written by an earlier version: it is derived, so it starts empty
            # and the ledger refills it (a count of 0 rebuilds it at start).
            log.warning("keyword index at %s has an older schema; starting it anew", self.path)
            shutil.rmtree(self.path)
            self.path.mkdir(parents=True)
            self.index = tantivy.Index(self.schema, path=str(self.path))
        self._writer = self.index.writer(heap_size=self.heap_bytes, num_threads=1)

    def apply(self, upserts: Sequence[StoredEntry], deletes: Sequence[str]) -> None:
        if not upserts and not deletes:
            return
        documents = [d for stored in upserts for d in self._documents(stored)]
        with self._lock:
            try:
                for key in [*deletes, *(s.entry.key for s in upserts)]:
                    self._writer.delete_documents_by_term("key", key)
                for document in documents:
                    self._writer.add_document(document)
                self._writer.commit()
            except Exception:
                # Nothing of a failed change may ride along with the next commit.
                self._writer.rollback()
                raise
        self.index.reload()

    def _documents(self, stored: StoredEntry) -> list[tantivy.Document]:
        return [self._document(stored, n, text) for n, text in enumerate(keyword_texts(stored))]

    def _document(self, stored: StoredEntry, passage: int, text: str) -> tantivy.Document:
        e = stored.entry
        doc = tantivy.Document()
        doc.add_text("key", e.key)
        doc.add_text("namespace", e.namespace)
        doc.add_text("tier", e.tier)
        if e.speaker is not None:
            doc.add_text("speaker", e.speaker)
        if e.chain_type is not None:
            doc.add_text("chain_type", e.chain_type)
        for tag in e.tags:
            doc.add_text("tags", tag)
        doc.add_text("kind", e.kind)
        doc.add_text("text", text)
        if e.speaker is not None:
            doc.add_text("speaker_text", e.speaker)
        doc.add_integer("timestamp", int(e.timestamp * MS))
        doc.add_integer("expires_at", int(e.expires_at * MS) if e.expires_at is not None else NEVER)
        doc.add_integer("archived", int(e.archived))
        doc.add_integer("passage", passage)
        return doc

    def _terms(self, text: str) -> list[str]:
        terms = list(dict.fromkeys(self._analyzer.analyze(text)))
        # A query of nothing but stopwords ("who was it?") still means its words.
        return terms or list(dict.fromkeys(self._fallback.analyze(text)))

    def score_bound(self, text: str) -> float:
        """The most BM25 an entry could score on ``text`` in the text field: the sum over
        the query's terms of idf x (k1 + 1), Tantivy's BM25 with k1 = 1.2."""
        searcher = self.index.searcher()
        docs = searcher.num_docs
        bound = 0.0
        for term in self._terms(text):
            df = searcher.doc_freq("text", term)
            bound += math.log(1 + (docs - df + 0.5) / (df + 0.5)) * (BM25_K1 + 1)
        return bound

    def search(self, text: str, filters: Filters, limit: int) -> list[Hit]:
        terms = self._terms(text)
        if not terms:
            return []
        match = Query.boolean_query(
            [
                (Occur.Should, Query.term_query(self.schema, field, t))
                for t in terms
                for field in ("text", "speaker_text")
            ]
        )
        query = Query.boolean_query(
            [(Occur.Must, match)]
            + [(Occur.Must, Query.const_score_query(q, 0.0)) for q in self._filters(filters)]
        )
        searcher = self.index.searcher()
        wanted = limit
        while True:
            found = searcher.search(query, wanted).hits
            hits: dict[str, Hit] = {}
            for score, address in found:
                doc = searcher.doc(address)
                key = str(doc["key"][0])
                if key not in hits:  # the entry's best passage comes first
                    hits[key] = Hit(key, float(score), int(doc["passage"][0]))
            # Passages of one entry fill some places: look deeper until `limit` entries
            # are found or nothing more matches.
            if len(hits) >= limit or len(found) < wanted:
                return list(hits.values())[:limit]
            wanted *= 2

    def _filters(self, f: Filters) -> list[Query]:
        s = self.schema
        queries = [
            Query.term_query(s, "namespace", f.namespace),
            Query.term_set_query(s, "tier", list(f.tiers)),
        ]
        # An expired entry counts as archived, whether or not the expiry job has run.
        if not f.include_archived:
            queries.append(Query.term_query(s, "archived", 0))
            expiry = tantivy.FieldType.Integer
            queries.append(Query.range_query(s, "expires_at", expiry, int(f.now * MS) + 1, NEVER))
        if f.speaker is not None:
            queries.append(Query.term_query(s, "speaker", f.speaker))
        if f.chain_type is not None:
            queries.append(Query.term_query(s, "chain_type", f.chain_type))
        queries.extend(Query.term_query(s, "tags", tag) for tag in f.tags)
        if f.kind is not None:
            queries.append(Query.term_query(s, "kind", f.kind))
        if f.since is not None or f.until is not None:
            lo = int(f.since * MS) if f.since is not None else -NEVER
            hi = int(f.until * MS) if f.until is not None else NEVER
            queries.append(Query.range_query(s, "timestamp", tantivy.FieldType.Integer, lo, hi))
        return queries

    def replace_all(self, batches: Iterable[Sequence[StoredEntry]]) -> None:
        with self._lock:
            self._writer.delete_all_documents()
            try:
                for batch in batches:
                    for stored in batch:
                        for document in self._documents(stored):
                            self._writer.add_document(document)
            except BaseException:
                self._writer.rollback()
                raise
            self._writer.commit()
        self.index.reload()

    def optimize(self) -> None:
        """Merge segments, then drop the files no longer used (those the merges replaced
        too); the writer is reopened between the two."""
        with self._lock:
            self._writer.wait_merging_threads()
            self._writer = self.index.writer(heap_size=self.heap_bytes, num_threads=1)
            self._writer.garbage_collect_files()

    def count(self) -> int:
        """The entries indexed (their documents of chunk 0)."""
        first = Query.term_query(self.schema, "passage", 0)
        # tantivy's stub lacks SearchResult.count, which the binding has.
        found: Any = self.index.searcher().search(first, 1, count=True)
        return int(found.count)

    def clear(self) -> None:
        with self._lock:
            self._writer.delete_all_documents()
            self._writer.commit()
        self.index.reload()

    def close(self) -> None:
        with self._lock:
            self._writer.wait_merging_threads()
