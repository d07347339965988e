"""An entry: its text, fields and history; promotion and deletion (confirmed first)."""

from __future__ import annotations

from contextlib import suppress

from litestar import get, post
from litestar.response import Redirect, Template

from schemas import wire
from service.edge.deps import Caller, CallerDep
from service.edge.params import AnyRequest, EntryId, Namespace
from service.errors import NotFound
from service.present.events import entry_out, history_out
from service.ui.links import entry_link
from service.ui.pages import page, redirect

ACTIONS = {
    "created": "Created",
    "updated": "Written again",
    "embedded": "Embedded",
    "promoted": "Promoted to tier A",
    "archived": "Archived",
    "restored": "Restored",
    "deleted": "Deleted",
    "superseded": "Superseded by",
    "reinstated": "Current again: deleted was",
}
"""How the timeline names each history action (``detail``, an entry id, follows)."""
CHAIN = 20
"""Most revisions an entry page shows on either side of the entry."""


def revisions(caller: Caller, entry: wire.EntryDetail) -> list[wire.EntryDetail]:
    """The chain an entry is part of, oldest first: following what each entry replaced
    (its latest) back, and what replaced it (the latest) forward."""
    chain = [entry]
    seen = {entry.id}

    def read(entry_id: str) -> wire.EntryDetail | None:
        if entry_id in seen:
            return None
        seen.add(entry_id)
        with suppress(NotFound):
            return entry_out(
                caller.services.events.get(caller.principal, entry_id, entry.namespace)
            )
        return None

    older = entry
    while older.supersedes and len(chain) < CHAIN:
        found = read(older.supersedes[-1].id)
        if found is None:
            break
        chain.insert(0, found)
        older = found
    newer = entry
    while newer.replaced_by and len(chain) < 2 * CHAIN:
        found = read(newer.replaced_by[-1].id)
        if found is None:
            break
        chain.append(found)
        newer = found
    return chain if len(chain) > 1 else []


@get("/entries/{entry_id:str}", name="console-entry", sync_to_thread=True)
def entry_page(
    request: AnyRequest, entry_id: EntryId, caller: CallerDep, namespace: Namespace = None
) -> Template:
    """The entry, or, once deleted, what happened to it: its history outlives it."""
    ns = caller.principal.namespace(namespace)
    entry: wire.EntryDetail | None = None
    with suppress(NotFound):
        entry = entry_out(caller.services.events.get(caller.principal, entry_id, ns))
    chain = revisions(caller, entry) if entry is not None else []
    try:
        history = history_out(
            caller.services.events.history(caller.principal, entry_id, ns)
        ).history
    except NotFound:
        if entry is None:
            raise
        history = []
    return page(
        request,
        "entry.html",
        section="search",
        entry_id=entry_id,
        namespace=ns,
        entry=entry,
        history=history,
        actions=ACTIONS,
        chain=chain,
    )


@post("/entries/{entry_id:str}/promote", name="console-promote")
async def promote(
    request: AnyRequest, entry_id: EntryId, caller: CallerDep, namespace: Namespace = None
) -> Redirect:
    """Make a tier C entry a lasting tier A entry (admins)."""
    asked = wire.PromoteRequest(ids=[entry_id], namespace=namespace)
    done = await caller.write(caller.services.admin.promote, asked)
    return redirect(request, entry_link(entry_id, done.namespace))


@get("/entries/{entry_id:str}/delete", name="console-confirm-delete", sync_to_thread=True)
def confirm_delete(
    request: AnyRequest, entry_id: EntryId, caller: CallerDep, namespace: Namespace = None
) -> Template:
    """The step before a deletion: what will go, and a button to confirm."""
    found = entry_out(caller.services.events.get(caller.principal, entry_id, namespace))
    return page(request, "delete.html", section="search", entry=found)


@post("/entries/{entry_id:str}/delete", name="console-delete")
async def delete_entry(
    request: AnyRequest, entry_id: EntryId, caller: CallerDep, namespace: Namespace = None
) -> Redirect:
    ns = await caller.write(caller.services.events.delete, entry_id, namespace)
    return redirect(request, entry_link(entry_id, ns))
