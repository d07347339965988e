"""The asynchronous client of the strata REST API: what an agent on an event loop calls.

async with AsyncStrataClient("http://127.0.0.1:8080") as strata:
    await strata.remember("We chose Postgres for billing.", tier="A")
    found = await strata.search("which database?", namespace="alice")

It takes its URL and key as ``StrataClient`` does (arguments, then ``STRATA_URL`` and
``STRATA_API_KEY``, then the config file), decodes each answer into its type from
``schemas.wire`` and raises ``StrataClientError`` for an error answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import httpx
import msgspec

from schemas import wire
from service.remote.client import connection, feedback_body, raise_problem, reference_body

T = TypeVar("T")


class AsyncStrataClient:
    def __init__(
        self,
        url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        base_url, key = connection(url, api_key)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = httpx.AsyncClient(
            base_url=base_url, headers=headers, timeout=timeout, transport=transport
        )

    async def __aenter__(self) -> AsyncStrataClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _call(self, kind: type[T], method: str, path: str, **kwargs: Any) -> T:
        """Send a request and decode its answer as ``kind``."""
        response = await self._http.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise_problem(response)
        return msgspec.json.decode(response.content, type=kind)

    async def add_events(self, events: Sequence[Mapping[str, Any]]) -> wire.EventsResponse:
        body = {"events": list(events)}
        return await self._call(wire.EventsResponse, "POST", "/v1/events", json=body)

    async def remember(self, text: str, *, tier: str = "A", **fields: Any) -> str:
        """Record one event; returns its id."""
        event = {"text": text, "tier": tier, **_given(**fields)}
        return (await self.add_events([event])).ids[0]

    async def search(self, query: str, **options: Any) -> wire.SearchResponse:
        body = {"query": query, **_given(**options)}
        return await self._call(wire.SearchResponse, "POST", "/v1/search", json=body)

    async def retrieve(self, question: str, **options: Any) -> wire.RetrieveResponse:
        """The best grounded entries, ``strong_match`` and the reasoning patterns."""
        body = {"question": question, **_given(**options)}
        return await self._call(wire.RetrieveResponse, "POST", "/v1/retrieve", json=body)

    async def context(self, question: str, **options: Any) -> wire.ContextResponse:
        """Memory for ``question`` as one cited block within ``max_tokens``."""
        body = {"question": question, **_given(**options)}
        return await self._call(wire.ContextResponse, "POST", "/v1/context", json=body)

    async def feedback(
        self,
        interaction_id: str,
        rating: str,
        comment: str | None = None,
        *,
        answers: Sequence[str] | None = None,
        nothing: bool = False,
    ) -> wire.FeedbackResponse:
        """Rate an answer; with ``answers`` or ``nothing``, its question becomes a reference
        question."""
        body = feedback_body(interaction_id, rating, comment, answers, nothing)
        return await self._call(wire.FeedbackResponse, "POST", "/v1/feedback", json=body)

    async def record_reference(
        self,
        question: str,
        answers: Sequence[str] = (),
        *,
        nothing: bool = False,
        namespace: str | None = None,
    ) -> wire.ReferenceOut:
        """Record a question whose answer is known: the entries that answer it, or
        ``nothing`` does."""
        body = reference_body(question, answers, nothing, namespace)
        return await self._call(wire.ReferenceOut, "POST", "/v1/references", json=body)

    async def get_entry(self, entry_id: str, namespace: str | None = None) -> wire.EntryDetail:
        """An entry with what it replaced (``supersedes``) and what replaced it."""
        params = _given(namespace=namespace)
        path = f"/v1/entries/{entry_id}"
        return await self._call(wire.EntryDetail, "GET", path, params=params)

    async def delete_entry(
        self, entry_id: str, namespace: str | None = None
    ) -> wire.DeleteResponse:
        params = _given(namespace=namespace)
        path = f"/v1/entries/{entry_id}"
        return await self._call(wire.DeleteResponse, "DELETE", path, params=params)

    async def health(self) -> wire.Health:
        return await self._call(wire.Health, "GET", "/health")


def _given(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}
