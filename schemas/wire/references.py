"""Reference questions: ``/v1/references``. A question a namespace's people or agents know the
answer to, which ``strata sweep`` asks to fit the namespace's calibration."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct, field

from schemas.wire.fields import Id, Namespace, Question

MOST_ANSWERS = 100
"""Most entries one reference may name."""

ReferenceSource = Literal["admin", "agent", "console", "feedback"]


class ReferenceRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    question: Question
    answers: Annotated[list[Id], Meta(max_length=MOST_ANSWERS)] = field(default_factory=list)
    """Ids of the namespace's entries that answer the question."""
    nothing: bool = False
    """Nothing in memory answers the question: the right answer is none. Give this or
    ``answers``."""
    namespace: Namespace | None = None


class ReferenceOut(Struct, kw_only=True):
    id: str
    namespace: str
    question: str
    answers: list[str]
    nothing: bool
    source: ReferenceSource
    """``agent`` or ``admin`` (by the key that recorded it), ``console``, or ``feedback``."""
    actor: str
    recorded_at: str


class ReferencesResponse(Struct, kw_only=True):
    references: list[ReferenceOut]
    total: int
    """References the namespace has."""
