"""Searching entries."""

from __future__ import annotations

import time

from litestar import Controller, post
from litestar.params import JSONBody

from schemas import wire
from service.api.convert import hit_out, to_query
from service.api.deps import PrincipalDep, ResourcesDep
from service.auth import Principal
from service.resources import Resources


class SearchController(Controller):
    path = "/v1"
    tags = ["search"]

    @post("/search", status_code=200, sync_to_thread=True)
    def search(
        self, data: JSONBody[wire.SearchRequest], resources: ResourcesDep, principal: PrincipalDep
    ) -> wire.SearchResponse:
        """Hybrid BM25 + vector search of one namespace; see the README for scoring."""
        return search(resources, principal, data)


def search(
    resources: Resources, principal: Principal, request: wire.SearchRequest
) -> wire.SearchResponse:
    """A search for ``principal``, as the REST endpoint and the MCP tool answer it."""
    started = time.perf_counter()
    now = resources.clock()
    query = to_query(request, namespace=principal.namespace(request.namespace), now=now)
    outcome = resources.retriever.search(query)
    took = round((time.perf_counter() - started) * 1000, 2)
    return wire.SearchResponse(
        results=[hit_out(r, now) for r in outcome.results],
        mode=outcome.mode,
        took_ms=took,
        degraded=[*resources.degraded, *outcome.degraded],
        relaxed=outcome.relaxed,
    )
