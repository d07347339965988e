"""An in-memory keyword store."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from service.domain.entries import StoredEntry
from service.domain.memory.texts import keyword_texts
from service.domain.model import Filters, Hit, KeywordStatistics
from service.stores.tantivy_index import QUERY_STOPWORDS
from tests.fakes.entries import matches, words

_STOPWORDS = frozenset(QUERY_STOPWORDS)


def query_terms(text: str) -> set[str]:
    """The query's words without question words, as Tantivy's query analysis drops them;
    all of its words when it has no others."""
    found = set(words(text))
    return found - _STOPWORDS or found


def _score(document: list[str], terms: set[str]) -> float:
    """Saturating in each term's count, as BM25 is (k1 = 1.2)."""
    return sum(n * 2.2 / (n + 1.2) for n in (document.count(t) for t in terms))


def bounded(bound: float, documents: int = 0) -> Callable[[str, str], KeywordStatistics]:
    """Keyword statistics of every query: ``bound``, and ``documents`` in the namespace."""
    return lambda text, namespace: KeywordStatistics(documents, {}, bound)


class FakeKeywordStore:
    """Entries by key; the score of a match grows with how many query words its text
    holds."""

    def __init__(self) -> None:
        self.entries: dict[str, StoredEntry] = {}
        self.optimized = 0
        """How many times ``optimize`` ran."""
        self.erased: list[str] = []
        """The namespaces erased, in order."""

    @property
    def keys(self) -> set[str]:
        return set(self.entries)

    def apply(self, upserts: Sequence[StoredEntry], deletes: Sequence[str]) -> None:
        for key in deletes:
            self.entries.pop(key, None)
        for s in upserts:
            self.entries[s.entry.key] = s

    def search(
        self, text: str, filters: Filters, limit: int, needed: int | None = None
    ) -> list[Hit]:
        """Every entry's hit up to ``limit``: ``needed`` lets a store read less; this one
        reads everything anyway."""
        terms = query_terms(text)
        hits = []
        for key, s in self.entries.items():
            if not matches(s.entry, filters):
                continue
            # Each passage scored alone; the entry's hit is its best (the first on ties).
            scores = [_score(words(text), terms) for text in keyword_texts(s)]
            best = max(range(len(scores)), key=lambda n: (scores[n], -n))
            if scores[best] > 0:
                hits.append(Hit(key, scores[best], best))
        hits.sort(key=lambda h: -h.score)
        return hits[:limit]

    def statistics(self, text: str, namespace: str) -> KeywordStatistics:
        held = [
            set(words(" ".join(keyword_texts(s))))
            for s in self.entries.values()
            if s.entry.namespace == namespace
        ]
        terms = query_terms(text)
        frequencies = {t: sum(t in h for h in held) for t in sorted(terms)}
        # Each query word scores at most 2.2 (``_score``); nothing where nothing is held.
        return KeywordStatistics(len(held), frequencies, 2.2 * len(terms) if held else 0.0)

    def erase_namespace(self, namespace: str) -> None:
        self.erased.append(namespace)
        self.entries = {k: s for k, s in self.entries.items() if s.entry.namespace != namespace}

    def replace_all(self, batches: Iterable[Sequence[StoredEntry]]) -> None:
        """The new set replaces the old at once; if ``batches`` raises, the old stays."""
        fresh: dict[str, StoredEntry] = {}
        for batch in batches:
            for s in batch:
                fresh[s.entry.key] = s
        self.entries = fresh

    def optimize(self) -> None:
        self.optimized += 1

    def count(self) -> int:
        return len(self.entries)

    def clear(self) -> None:
        self.entries.clear()
