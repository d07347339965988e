"""strata as a LangChain retriever (the ``langchain`` extra: ``pip install 'strata[langchain]'``).

from service.remote.langchain import StrataRetriever

retriever = StrataRetriever(namespace="alice", limit=5, filters={"tiers": ["A", "C"]})
docs = retriever.invoke("what is Alice allergic to?")      # or: await retriever.ainvoke(...)
docs[0].metadata  # {"id": ..., "tier": "A", "score": 0.83, "source": "notes/adr/007.md", ...}

Each search hit becomes a ``Document``: its text, its id, and strata's metadata
(``service.remote.hits.metadata``). ``url`` and ``api_key`` default as the client's do
(``STRATA_URL``, ``STRATA_API_KEY``, the config file); ``filters`` are fields of
``POST /v1/search``, checked when the retriever is made.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, field_validator

from schemas import wire
from service.remote.aio import AsyncStrataClient
from service.remote.client import StrataClient
from service.remote.hits import checked_filters, metadata, search_options


class StrataRetriever(BaseRetriever):
    """Documents from a strata service's hybrid search."""

    url: str | None = None
    """The service; default: ``STRATA_URL``, the config file, then ``http://127.0.0.1:8080``."""
    api_key: str | None = Field(default=None, repr=False)
    """Sent as ``Authorization: Bearer``; default: ``STRATA_API_KEY`` or the config file."""
    namespace: str | None = None
    """The namespace searched; default: the key's only namespace, or ``default``."""
    limit: int = Field(default=10, ge=1, le=100)
    """Most documents returned."""
    filters: dict[str, Any] = Field(default_factory=dict)
    """Other fields of the search (``tiers``, ``mode``, ``speaker``, ``tags``, ``since``,
    ``min_score``, ...)."""
    timeout: float = 60.0
    """Seconds before a search is abandoned."""

    @field_validator("filters")
    @classmethod
    def _known(cls, filters: dict[str, Any]) -> dict[str, Any]:
        return checked_filters(filters)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        with StrataClient(self.url, api_key=self.api_key, timeout=self.timeout) as client:
            found = client.search(query, **search_options(self.namespace, self.limit, self.filters))
        return documents(found)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        options = search_options(self.namespace, self.limit, self.filters)
        async with AsyncStrataClient(
            self.url, api_key=self.api_key, timeout=self.timeout
        ) as client:
            found = await client.search(query, **options)
        return documents(found)


def documents(found: wire.SearchResponse) -> list[Document]:
    return [
        Document(id=hit.id, page_content=hit.text or "", metadata=metadata(hit))
        for hit in found.results
    ]
