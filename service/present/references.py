"""Reference questions as the wire types of ``schemas.wire.references``."""

from __future__ import annotations

from schemas import wire
from service.application.references import Listed
from service.domain.model.references import Reference
from service.present.times import format_time


def reference_out(reference: Reference) -> wire.ReferenceOut:
    return wire.ReferenceOut(
        id=reference.id,
        namespace=reference.namespace,
        question=reference.question,
        answers=list(reference.answers),
        nothing=not reference.answerable,
        source=reference.source,
        actor=reference.actor,
        recorded_at=format_time(reference.at) or "",
    )


def references_out(listed: Listed) -> wire.ReferencesResponse:
    return wire.ReferencesResponse(
        references=[reference_out(r) for r in listed.references], total=listed.total
    )
