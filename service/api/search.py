"""Searching entries."""

from __future__ import annotations

from litestar import Controller, post
from litestar.params import JSONBody

from schemas import wire
from service.api import present
from service.api.deps import PrincipalDep, ServicesDep


class SearchController(Controller):
    path = "/v1"
    tags = ["search"]

    @post("/search", status_code=200, sync_to_thread=True)
    def search(
        self, data: JSONBody[wire.SearchRequest], services: ServicesDep, principal: PrincipalDep
    ) -> wire.SearchResponse:
        """Hybrid BM25 + vector search of one namespace; see the README for scoring."""
        return present.search_out(services.search.search(principal, data))
