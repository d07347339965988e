"""Writing, reading and deleting entries."""

from __future__ import annotations

from litestar import Controller, delete, get, post
from litestar.params import JSONBody

from schemas import wire
from service.edge.deps import CallerDep
from service.edge.openapi import problems
from service.edge.params import EntryId, Namespace
from service.present.events import entry_out, history_out, written


class EventsController(Controller):
    path = "/v1"
    tags = ["events"]

    @post("/events", status_code=201)
    async def write_events(
        self, data: JSONBody[wire.EventsRequest], caller: CallerDep
    ) -> wire.EventsResponse:
        """Store a batch of events; all of it or, on any invalid event, none of it."""
        outcome = await caller.write(caller.services.events.write, data.events)
        return written(outcome, [e.supersedes for e in data.events])

    @get("/entries/{entry_id:str}", sync_to_thread=True, responses=problems(404))
    def read_entry(
        self, entry_id: EntryId, caller: CallerDep, namespace: Namespace = None
    ) -> wire.EntryDetail:
        """An entry, with the entries it replaced and those that replaced it."""
        return entry_out(caller.services.events.get(caller.principal, entry_id, namespace))

    @delete("/entries/{entry_id:str}", status_code=200, responses=problems(404))
    async def delete_entry(
        self, entry_id: EntryId, caller: CallerDep, namespace: Namespace = None
    ) -> wire.DeleteResponse:
        ns = await caller.write(caller.services.events.delete, entry_id, namespace)
        return wire.DeleteResponse(entry_id, ns, deleted=True)

    @get("/entries/{entry_id:str}/history", sync_to_thread=True, responses=problems(404))
    def entry_history(
        self, entry_id: EntryId, caller: CallerDep, namespace: Namespace = None
    ) -> wire.HistoryResponse:
        """What happened to an entry, oldest first; kept after the entry is deleted."""
        return history_out(caller.services.events.history(caller.principal, entry_id, namespace))
