"""What the tools need from strata, acting for one caller: the use cases in this process,
or a running service over REST."""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from schemas import wire
from service.application import Services
from service.application.auth import Principal
from service.present.answers import retrieve_out
from service.present.collections import document_out, documents_out
from service.present.context import context_out
from service.present.events import entry_out, written
from service.present.references import reference_out
from service.present.search import search_out
from service.present.status import health_out, stats_out
from service.remote.client import StrataClient

Json = dict[str, Any]


class Status(msgspec.Struct):
    """The ``status`` tool's answer: the service's health and what it stores."""

    health: wire.Health
    stats: wire.StatsResponse


class Gateway(Protocol):
    """strata acting for one caller; answers are the REST API's wire types."""

    def search(self, request: wire.SearchRequest) -> wire.SearchResponse: ...
    def retrieve(self, request: wire.RetrieveRequest) -> wire.RetrieveResponse: ...
    def context(self, request: wire.ContextRequest) -> wire.ContextResponse: ...
    def entry(self, entry_id: str, namespace: str | None) -> wire.EntryOut: ...
    def document(self, path: str, from_line: int, lines: int | None) -> wire.DocumentOut: ...
    def documents(self, request: wire.DocumentsRequest) -> wire.DocumentsResponse: ...
    def write(self, event: wire.Event) -> wire.EventsResponse: ...
    def record_reference(self, request: wire.ReferenceRequest) -> wire.ReferenceOut: ...
    def status(self) -> Status: ...


class LocalGateway:
    """The use cases of this process, for the caller whose API key came with the request."""

    def __init__(self, services: Services, principal: Principal) -> None:
        self.services = services
        self.principal = principal

    def search(self, request: wire.SearchRequest) -> wire.SearchResponse:
        return search_out(self.services.search.search(self.principal, request), request.fields)

    def retrieve(self, request: wire.RetrieveRequest) -> wire.RetrieveResponse:
        return retrieve_out(self.services.answers.retrieve(self.principal, request))

    def context(self, request: wire.ContextRequest) -> wire.ContextResponse:
        return context_out(self.services.context.context(self.principal, request))

    def entry(self, entry_id: str, namespace: str | None) -> wire.EntryOut:
        return entry_out(self.services.events.get(self.principal, entry_id, namespace))

    def document(self, path: str, from_line: int, lines: int | None) -> wire.DocumentOut:
        found = self.services.documents.read(self.principal, path, from_line, lines)
        return document_out(found)

    def documents(self, request: wire.DocumentsRequest) -> wire.DocumentsResponse:
        found = self.services.documents.read_many(self.principal, request)
        return documents_out(found)

    def write(self, event: wire.Event) -> wire.EventsResponse:
        outcome = self.services.events.write(self.principal, [event])
        return written(outcome, [event.supersedes])

    def record_reference(self, request: wire.ReferenceRequest) -> wire.ReferenceOut:
        recorded = self.services.references.record(
            self.principal, request.question, request.answers, request.nothing, request.namespace
        )
        return reference_out(recorded)

    def status(self) -> Status:
        status = self.services.status
        return Status(
            health_out(status.health()),
            stats_out(status.stats(self.principal)),
        )


class RestGateway:
    """A running strata service, over its REST API."""

    def __init__(self, client: StrataClient) -> None:
        self.client = client

    def search(self, request: wire.SearchRequest) -> wire.SearchResponse:
        options = msgspec.to_builtins(request)
        return self.client.search(options.pop("query"), **options)

    def retrieve(self, request: wire.RetrieveRequest) -> wire.RetrieveResponse:
        options = msgspec.to_builtins(request)
        return self.client.retrieve(options.pop("question"), **options)

    def context(self, request: wire.ContextRequest) -> wire.ContextResponse:
        options = msgspec.to_builtins(request)
        return self.client.context(options.pop("question"), **options)

    def entry(self, entry_id: str, namespace: str | None) -> wire.EntryOut:
        return self.client.get_entry(entry_id, namespace)

    def document(self, path: str, from_line: int, lines: int | None) -> wire.DocumentOut:
        return self.client.get_document(path, from_line, lines)

    def documents(self, request: wire.DocumentsRequest) -> wire.DocumentsResponse:
        return self.client.get_documents(request.pattern, request.max_bytes)

    def write(self, event: wire.Event) -> wire.EventsResponse:
        return self.client.add_events([msgspec.to_builtins(event)])

    def record_reference(self, request: wire.ReferenceRequest) -> wire.ReferenceOut:
        return self.client.record_reference(
            request.question, request.answers, nothing=request.nothing, namespace=request.namespace
        )

    def status(self) -> Status:
        return Status(self.client.health(), self.client.stats())
