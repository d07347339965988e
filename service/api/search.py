"""Searching entries."""

from __future__ import annotations

from litestar import Controller, post
from litestar.params import JSONBody

from schemas import wire
from schemas.vocabulary import RECALL_HEADER
from service.edge.deps import CallerDep
from service.edge.params import AnyRequest
from service.present.search import search_out


class SearchController(Controller):
    path = "/v1"
    tags = ["search"]

    @post("/search", status_code=200, sync_to_thread=True)
    def search(
        self, data: JSONBody[wire.SearchRequest], caller: CallerDep, request: AnyRequest
    ) -> wire.SearchResponse:
        """Hybrid BM25 + vector search of one namespace; see docs/guide/searching.md for scoring. A
        search sent with ``X-Strata-Recall`` (by another service recalling from this one)
        never asks this service's own upstream."""
        ask_upstream = RECALL_HEADER not in request.headers
        searched = caller.services.search.search(caller.principal, data, ask_upstream=ask_upstream)
        return search_out(searched, data.fields)
