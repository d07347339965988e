"""One namespace's Tantivy index: BM25 over English-stemmed text, filters as exact terms.

An entry is one document, or one per chunk for an entry found by passage (a digest); a
search collapses them to one hit per entry, its best, naming the chunk. The index holds one
namespace alone, so its BM25 statistics (document frequencies, lengths, the number of
documents) are that namespace's own."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import tantivy
from tantivy import Filter, Occur, Query, TextAnalyzerBuilder, Tokenizer

from service.domain.entries import StoredEntry
from service.domain.memory.texts import keyword_texts
from service.domain.model import ORDER_PLACES, Filters, Hit, KeywordStatistics

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


_ANALYZER = _query_analyzer(QUERY_STOPWORDS)
"""The ``en_stem`` analysis, applied to queries, with question words dropped."""
_FALLBACK = _query_analyzer([])


def query_terms(text: str) -> list[str]:
    """The query's stemmed terms without question words; a query of nothing but stopwords
    ("who was it?") still means its words."""
    terms = list(dict.fromkeys(_ANALYZER.analyze(text)))
    return terms or list(dict.fromkeys(_FALLBACK.analyze(text)))


def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_text_field("key", stored=True, tokenizer_name="raw")
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


SCHEMA = _schema()


def documents(stored: StoredEntry) -> list[tantivy.Document]:
    """The documents of an entry: one, or one per passage for an entry found by passage."""
    return [_document(stored, n, text) for n, text in enumerate(keyword_texts(stored))]


def _document(stored: StoredEntry, passage: int, text: str) -> tantivy.Document:
    e = stored.entry
    doc = tantivy.Document()
    doc.add_text("key", e.key)
    doc.add_text("tier", e.tier)
    if e.speaker is not None:
        doc.add_text("speaker", e.speaker)
        doc.add_text("speaker_text", e.speaker)
    if e.chain_type is not None:
        doc.add_text("chain_type", e.chain_type)
    for tag in e.tags:
        doc.add_text("tags", tag)
    doc.add_text("kind", e.kind)
    doc.add_text("text", text)
    doc.add_integer("timestamp", int(e.timestamp * MS))
    doc.add_integer("expires_at", int(e.expires_at * MS) if e.expires_at is not None else NEVER)
    doc.add_integer("archived", int(e.archived))
    doc.add_integer("passage", passage)
    return doc


class NamespaceIndex:
    """A namespace's index on disk, opened (or created) at ``path``. Writes go through a
    writer the caller opens, one at a time (Tantivy locks the folder)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.index = tantivy.Index(SCHEMA, path=str(path))

    def writer(self, heap_bytes: int) -> tantivy.IndexWriter:
        return self.index.writer(heap_size=heap_bytes, num_threads=1)

    @staticmethod
    def write(
        writer: tantivy.IndexWriter, upserts: Sequence[StoredEntry], deletes: Sequence[str]
    ) -> None:
        """Replace or add ``upserts`` and remove ``deletes`` in one commit; nothing of a
        failed change rides along with the next."""
        try:
            for key in [*deletes, *(s.entry.key for s in upserts)]:
                writer.delete_documents_by_term("key", key)
            for stored in upserts:
                for document in documents(stored):
                    writer.add_document(document)
            writer.commit()
        except Exception:
            writer.rollback()
            raise

    def reload(self) -> None:
        self.index.reload()

    def statistics(self, terms: Sequence[str]) -> KeywordStatistics:
        """The index's documents, each term's document frequency, and the most BM25 an entry
        could score on the terms in the text field: the sum over them of idf x (k1 + 1),
        Tantivy's BM25 with k1 = 1.2."""
        searcher = self.index.searcher()
        docs = searcher.num_docs
        frequencies = {term: searcher.doc_freq("text", term) for term in terms}
        bound = sum(
            math.log(1 + (docs - df + 0.5) / (df + 0.5)) * (BM25_K1 + 1)
            for df in frequencies.values()
        )
        return KeywordStatistics(docs, frequencies, bound)

    def search(
        self, terms: Sequence[str], filters: Filters, limit: int, needed: int | None = None
    ) -> list[Hit]:
        """The best ``limit`` entries (``KeywordStore.search``); with ``needed``, documents
        are read only until ``needed`` entries and those tied with the last of them are."""
        match = Query.boolean_query(
            [
                (Occur.Should, Query.term_query(SCHEMA, field, t))
                for t in terms
                for field in ("text", "speaker_text")
            ]
        )
        query = Query.boolean_query(
            [(Occur.Must, match)]
            + [(Occur.Must, Query.const_score_query(q, 0.0)) for q in _filters(filters)]
        )
        searcher = self.index.searcher()
        wanted = limit
        while True:
            found = searcher.search(query, wanted).hits
            hits, read_all = _entries(searcher, found, needed)
            # Passages of one entry fill some places: look deeper until `limit` entries
            # are found or nothing more matches.
            if not read_all or len(hits) >= limit or len(found) < wanted:
                return list(hits.values())[:limit]
            wanted *= 2

    def count(self) -> int:
        """The entries indexed (their documents of chunk 0)."""
        first = Query.term_query(SCHEMA, "passage", 0)
        # tantivy's stub lacks SearchResult.count, which the binding has.
        found: Any = self.index.searcher().search(first, 1, count=True)
        return int(found.count)


def _entries(
    searcher: tantivy.Searcher, found: Sequence[tuple[float, Any]], needed: int | None
) -> tuple[dict[str, Hit], bool]:
    """The entries of the documents ``found`` (best first), each with its best passage, by
    key; and whether every document was read. With ``needed``, reading stops at the first
    document scoring, rounded, below the ``needed``-th entry: documents come best first,
    so no later one could rank among the first ``needed``."""
    read = searcher.doc
    hits: dict[str, Hit] = {}
    last: float | None = None
    for score, address in found:
        if last is not None and round(score, ORDER_PLACES) < last:
            return hits, False
        doc = read(address)
        key = cast(str, doc.get_first("key"))  # every document has one of each
        if key not in hits:  # the entry's best passage comes first
            hits[key] = Hit(key, score, cast(int, doc.get_first("passage")))
            if len(hits) == needed:
                last = round(score, ORDER_PLACES)
    return hits, True


def _filters(f: Filters) -> list[Query]:
    """The filters as exact-term queries; the namespace is the index's own."""
    queries = [Query.term_set_query(SCHEMA, "tier", list(f.tiers))]
    # An expired entry counts as archived, whether or not the expiry job has run.
    if not f.include_archived:
        queries.append(Query.term_query(SCHEMA, "archived", 0))
        expiry = tantivy.FieldType.Integer
        queries.append(Query.range_query(SCHEMA, "expires_at", expiry, int(f.now * MS) + 1, NEVER))
    if f.speaker is not None:
        queries.append(Query.term_query(SCHEMA, "speaker", f.speaker))
    if f.chain_type is not None:
        queries.append(Query.term_query(SCHEMA, "chain_type", f.chain_type))
    queries.extend(Query.term_query(SCHEMA, "tags", tag) for tag in f.tags)
    if f.kind is not None:
        queries.append(Query.term_query(SCHEMA, "kind", f.kind))
    if f.since is not None or f.until is not None:
        lo = int(f.since * MS) if f.since is not None else -NEVER
        hi = int(f.until * MS) if f.until is not None else NEVER
        queries.append(Query.range_query(SCHEMA, "timestamp", tantivy.FieldType.Integer, lo, hi))
    return queries
