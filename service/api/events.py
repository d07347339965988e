"""Writing, reading and deleting entries."""

from __future__ import annotations

from litestar import Controller, delete, get, post
from litestar.params import FromPath, FromQuery, JSONBody

from schemas import wire
from service.api.convert import entry_out, format_time, to_entries
from service.api.deps import PrincipalDep, ResourcesDep
from service.domain.models import entry_key
from service.errors import NotFound, PayloadTooLarge


class EventsController(Controller):
    path = "/v1"
    tags = ["events"]

    @post("/events", status_code=201, sync_to_thread=True)
    def write_events(
        self, data: JSONBody[wire.EventsRequest], resources: ResourcesDep, principal: PrincipalDep
    ) -> wire.EventsResponse:
        """Store a batch of events; all of it or, on any invalid event, none of it."""
        limit = resources.settings.max_batch
        if len(data.events) > limit:
            raise PayloadTooLarge(f"events: {len(data.events)} events, at most {limit} per batch")
        entries = to_entries(
            data.events,
            now=resources.clock(),
            new_id=resources.new_id,
            policy=resources.policy,
            namespace=principal.namespace,
        )
        outcome = resources.memory.write(entries, principal.name)
        return wire.EventsResponse(outcome.ids, outcome.embedded, outcome.indexed)

    @get("/entries/{entry_id:str}", sync_to_thread=True)
    def read_entry(
        self,
        entry_id: FromPath[str],
        resources: ResourcesDep,
        principal: PrincipalDep,
        namespace: FromQuery[str | None] = None,
    ) -> wire.EntryOut:
        ns = principal.namespace(namespace)
        found = resources.memory.get(entry_key(ns, entry_id))
        if found is None:
            raise NotFound(f"no entry {entry_id!r} in namespace {ns!r}")
        return entry_out(found.entry, resources.clock())

    @delete("/entries/{entry_id:str}", status_code=200, sync_to_thread=True)
    def delete_entry(
        self,
        entry_id: FromPath[str],
        resources: ResourcesDep,
        principal: PrincipalDep,
        namespace: FromQuery[str | None] = None,
    ) -> wire.DeleteResponse:
        ns = principal.namespace(namespace)
        if not resources.memory.delete([entry_key(ns, entry_id)], principal.name):
            raise NotFound(f"no entry {entry_id!r} in namespace {ns!r}")
        return wire.DeleteResponse(entry_id, ns, deleted=True)

    @get("/entries/{entry_id:str}/history", sync_to_thread=True)
    def entry_history(
        self,
        entry_id: FromPath[str],
        resources: ResourcesDep,
        principal: PrincipalDep,
        namespace: FromQuery[str | None] = None,
    ) -> wire.HistoryResponse:
        """What happened to an entry, oldest first; kept after the entry is deleted."""
        ns = principal.namespace(namespace)
        events = resources.ledger.history(entry_key(ns, entry_id))
        if not events:
            raise NotFound(f"no entry {entry_id!r} in namespace {ns!r}")
        return wire.HistoryResponse(
            id=entry_id,
            namespace=ns,
            history=[
                wire.HistoryItem(at=format_time(e.at) or "", action=e.action, actor=e.actor)
                for e in events
            ],
        )
