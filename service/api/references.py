"""Reference questions: record, list and remove them."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, delete, get, post
from litestar.params import FromPath, JSONBody, QueryParameter

from schemas import wire
from service.edge.deps import CallerDep
from service.edge.openapi import problems
from service.edge.params import Namespace
from service.present.references import reference_out, references_out

Offset = Annotated[int, QueryParameter(ge=0, le=1_000_000, description="References skipped")]
Limit = Annotated[int, QueryParameter(ge=1, le=1000, description="Most references listed")]


class ReferencesController(Controller):
    path = "/v1/references"
    tags = ["answers"]

    @post("/", status_code=201, sync_to_thread=True, responses=problems(422))
    def record(self, data: JSONBody[wire.ReferenceRequest], caller: CallerDep) -> wire.ReferenceOut:
        """Record a question whose answer is known: the entries that answer it, or that
        nothing in memory does. ``strata sweep`` asks them to fit the namespace's
        strong-match threshold and relevance floor."""
        return reference_out(
            caller.services.references.record(
                caller.principal, data.question, data.answers, data.nothing, data.namespace
            )
        )

    @get("/", sync_to_thread=True)
    def listed(
        self, caller: CallerDep, namespace: Namespace = None, offset: Offset = 0, limit: Limit = 100
    ) -> wire.ReferencesResponse:
        """The namespace's reference questions, in the order recorded."""
        return references_out(
            caller.services.references.listed(caller.principal, namespace, offset, limit)
        )

    @delete("/{reference_id:str}", status_code=204, sync_to_thread=True, responses=problems(404))
    def remove(
        self, reference_id: FromPath[str], caller: CallerDep, namespace: Namespace = None
    ) -> None:
        """Remove a reference question (admin keys)."""
        caller.services.references.remove(caller.principal, namespace, reference_id)
