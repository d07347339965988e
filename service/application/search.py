"""Searching entries."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

from schemas import wire
from service.application.auth import Principal
from service.application.inputs import to_query
from service.application.recall import Recall, RecallUseCases
from service.domain.answers.tuning import Tuning, Tunings
from service.domain.search.query import SearchOutcome
from service.domain.search.searcher import Searcher
from service.telemetry.tracing import OFF, Tracing


@dataclass(frozen=True)
class Searched:
    outcome: SearchOutcome
    now: float
    """The moment the search ran: entries expired by then show as archived."""
    took_ms: float
    degraded: list[str]
    text_chars: int
    """Most characters of an entry's text a hit carries."""
    recall: Recall | None = None
    """What the upstream returned, when the local search found nothing and it was asked."""
    tuning: Tuning | None = None
    """With ``explain``: the namespace's tuning, whose floor a request naming none is given."""


@dataclass(eq=False)
class SearchUseCase:
    searcher: Searcher
    degraded: list[str]
    """Why the service runs with less than it should (shared, filled at start)."""
    _: KW_ONLY
    text_chars: int
    clock: Callable[[], float]
    tracing: Tracing = OFF
    recall: RecallUseCases | None = None
    """The upstream asked when a search finds nothing; None: none."""
    tunings: Tunings | None = None
    """Each namespace's relevance floor; None: the searcher's everywhere."""

    def search(
        self, principal: Principal, request: wire.SearchRequest, *, ask_upstream: bool = True
    ) -> Searched:
        """Hybrid BM25 + vector search of one namespace the caller may read; when it finds
        nothing (above the relevance floor), even relaxed, the upstream's hits (if one is
        configured and ``ask_upstream``)."""
        started = time.perf_counter()
        now = self.clock()
        namespace = principal.namespace(request.namespace)
        tuning = self.tunings.of(namespace) if self.tunings is not None else None
        floor = tuning.floor if tuning is not None else self.searcher.min_score
        query = to_query(request, namespace=namespace, now=now, floor=floor)
        with self.tracing.memory("search_memory", namespace, query=query.text) as span:
            outcome = self.searcher.search(query)
            if span is not None:
                span.set_attribute("strata.search.mode", outcome.mode)
                self.tracing.records(span, _records(outcome))
        recall = None
        # Memory as of a moment is this memory's own: the upstream answers as of now.
        asking = ask_upstream and query.filters.as_of is None
        if asking and not outcome.results and self.recall is not None:
            recall = self.recall.ask(principal, namespace, query.text, request.limit)
        took = round((time.perf_counter() - started) * 1000, 2)
        degraded = [*self.degraded, *outcome.degraded, *(recall.degraded if recall else [])]
        shown = tuning if request.explain else None
        return Searched(outcome, now, took, degraded, self.text_chars, recall, shown)


def _records(outcome: SearchOutcome) -> list[dict[str, object]]:
    return [{"id": r.entry.id, "content": r.entry.text, "score": r.score} for r in outcome.results]
