"""What the tools need from strata, acting for one caller: the use cases in this process,
or a running service over REST."""

from __future__ import annotations

from typing import Any, Protocol, cast

import msgspec

from schemas import wire
from service import present
from service.application import Services
from service.auth import Principal
from service.client import StrataClient

Json = dict[str, Any]


class Backend(Protocol):
    """strata acting for one caller. Results are JSON-ready."""

    def search(self, request: wire.SearchRequest) -> Json: ...
    def retrieve(self, request: wire.RetrieveRequest) -> Json: ...
    def entry(self, entry_id: str, namespace: str | None) -> Json: ...
    def document(self, path: str, from_line: int, lines: int | None) -> Json: ...
    def documents(self, request: wire.DocumentsRequest) -> Json: ...
    def write(self, event: wire.Event) -> Json: ...
    def status(self) -> Json: ...


class LocalBackend:
    """The use cases of this process, for the caller whose API key came with the request."""

    def __init__(self, services: Services, principal: Principal) -> None:
        self.services = services
        self.principal = principal

    def search(self, request: wire.SearchRequest) -> Json:
        return _plain(present.search_out(self.services.search.search(self.principal, request)))

    def retrieve(self, request: wire.RetrieveRequest) -> Json:
        answered = self.services.answers.retrieve(self.principal, request)
        return _plain(present.retrieve_out(answered))

    def entry(self, entry_id: str, namespace: str | None) -> Json:
        found = self.services.events.get(self.principal, entry_id, namespace)
        return _plain(present.entry_out(found))

    def document(self, path: str, from_line: int, lines: int | None) -> Json:
        found = self.services.documents.read(self.principal, path, from_line, lines)
        return _plain(present.document_out(found))

    def documents(self, request: wire.DocumentsRequest) -> Json:
        found = self.services.documents.read_many(self.principal, request)
        return _plain(present.documents_out(found))

    def write(self, event: wire.Event) -> Json:
        return _plain(present.written(self.services.events.write(self.principal, [event])))

    def status(self) -> Json:
        status = self.services.status
        return {
            "health": _plain(present.health_out(status.health())),
            "stats": _plain(present.stats_out(status.stats(self.principal))),
        }


class RestBackend:
    """A running strata service, over its REST API."""

    def __init__(self, client: StrataClient) -> None:
        self.client = client

    def search(self, request: wire.SearchRequest) -> Json:
        options = msgspec.to_builtins(request)
        return self.client.search(options.pop("query"), **options)

    def retrieve(self, request: wire.RetrieveRequest) -> Json:
        options = msgspec.to_builtins(request)
        return self.client.retrieve(options.pop("question"), **options)

    def entry(self, entry_id: str, namespace: str | None) -> Json:
        return self.client.get_entry(entry_id, namespace)

    def document(self, path: str, from_line: int, lines: int | None) -> Json:
        return self.client.get_document(path, from_line, lines)

    def documents(self, request: wire.DocumentsRequest) -> Json:
        return self.client.get_documents(request.pattern, request.max_bytes)

    def write(self, event: wire.Event) -> Json:
        return self.client.add_events([msgspec.to_builtins(event)])

    def status(self) -> Json:
        return {"health": self.client.health(), "stats": self.client.stats()}


def _plain(value: msgspec.Struct) -> Json:
    return cast(Json, msgspec.to_builtins(value))
