"""The body of every error answer: RFC 9457 problem details."""

from __future__ import annotations

from msgspec import Struct, field


class FieldProblem(Struct):
    field: str
    message: str


class Problem(Struct, omit_defaults=True):
    """RFC 9457 problem details."""

    type: str
    title: str
    status: int
    detail: str
    errors: list[FieldProblem] = field(default_factory=list)
    request_id: str | None = None
    """The request's id, as its ``X-Request-ID`` header says and its log lines carry."""
