"""strata as a LlamaIndex retriever (the ``llamaindex`` extra:
``pip install 'strata[llamaindex]'``).

from service.remote.llamaindex import StrataRetriever

retriever = StrataRetriever(namespace="alice", limit=5, filters={"tiers": ["A", "C"]})
nodes = retriever.retrieve("what is Alice allergic to?")   # or: await retriever.aretrieve(...)
nodes[0].score, nodes[0].node.metadata  # 0.83, {"id": ..., "tier": "A", "source": ..., ...}

Each search hit becomes a ``NodeWithScore``: a ``TextNode`` with the hit's id, text and
strata's metadata (``service.remote.hits.metadata``), scored with the hit's score.
``url`` and ``api_key`` default as the client's do (``STRATA_URL``, ``STRATA_API_KEY``, the
config file); ``filters`` are fields of ``POST /v1/search``, checked when the retriever is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llama_index.core.callbacks import CallbackManager
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from schemas import wire
from service.remote.aio import AsyncStrataClient
from service.remote.client import StrataClient
from service.remote.hits import checked_filters, metadata, search_options


class StrataRetriever(BaseRetriever):
    """Nodes from a strata service's hybrid search."""

    def __init__(
        self,
        url: str | None = None,
        *,
        api_key: str | None = None,
        namespace: str | None = None,
        limit: int = 10,
        filters: Mapping[str, Any] | None = None,
        timeout: float = 60.0,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        """``namespace``: the one searched (default: the key's only namespace, or
        ``default``); ``limit``: most nodes returned; ``filters``: other fields of the search
        (``tiers``, ``mode``, ``speaker``, ``tags``, ``since``, ``min_score``, ...)."""
        if not 1 <= limit <= 100:
            raise ValueError(f"limit is from 1 to 100, not {limit}")
        self.url = url
        self.namespace = namespace
        self.limit = limit
        self.filters = checked_filters(filters or {})
        self.timeout = timeout
        self._api_key = api_key
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        options = search_options(self.namespace, self.limit, self.filters)
        with StrataClient(self.url, api_key=self._api_key, timeout=self.timeout) as client:
            found = client.search(query_bundle.query_str, **options)
        return nodes(found)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        options = search_options(self.namespace, self.limit, self.filters)
        async with AsyncStrataClient(
            self.url, api_key=self._api_key, timeout=self.timeout
        ) as client:
            found = await client.search(query_bundle.query_str, **options)
        return nodes(found)


def nodes(found: wire.SearchResponse) -> list[NodeWithScore]:
    return [
        NodeWithScore(
            node=TextNode(id_=hit.id, text=hit.text or "", metadata=metadata(hit)), score=hit.score
        )
        for hit in found.results
    ]
