"""Searching entries."""

from __future__ import annotations

import time

from litestar import Controller, post

from schemas import wire
from service.api.convert import hit_out, to_query
from service.auth import Principal
from service.resources import Resources


class SearchController(Controller):
    path = "/v1"
    tags = ["search"]

    @post("/search", status_code=200, sync_to_thread=True)
    def search(
        self, data: wire.SearchRequest, resources: Resources, principal: Principal
    ) -> wire.SearchResponse:
        """Hybrid BM25 + vector search of one namespace; see the README for scoring."""
        started = time.perf_counter()
        query = to_query(data, namespace=principal.namespace(data.namespace), now=resources.clock())
        outcome = resources.retriever.search(query)
        took = round((time.perf_counter() - started) * 1000, 2)
        return wire.SearchResponse(
            results=[hit_out(r) for r in outcome.results],
            mode=outcome.mode,
            took_ms=took,
            degraded=[*resources.degraded, *outcome.degraded],
        )
