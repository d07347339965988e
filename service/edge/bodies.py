"""A JSON request body as the service reads it, checked before any handler (and any key) sees
it: UTF-8 text, JSON, at most ``MAX_DEPTH`` containers deep, and of its handler's type.

Every way a body can fail to be read is a problem-details answer here, never an exception
past the error handlers: bytes that are not UTF-8, or not JSON, or nested deeper than the
service reads, are 400 (``MalformedRequest``); a body its type refuses is 422 naming the
field. Nothing here recurses in Python, so no body can exhaust the stack.

Litestar converts a decoded body to its type leniently (``"10"`` or ``10.0`` for an integer,
``0`` for a boolean), which suits query strings but lets a body the schema refuses through.
A body is checked here as the schema reads it: strict types, except that a number with an
integral value is an integer, as JSON Schema has it.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar.exceptions import ValidationException

from service.errors import MalformedRequest

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects a body may have; no request type needs more than a
few levels."""
EXACT = 2**53
"""Largest integral float taken as an integer: beyond it a float is not exact."""


def read_body(body: bytes, annotation: Any) -> Any:
    """``body`` as a value of type ``annotation``: MalformedRequest (400) when it is not
    readable JSON, ValidationException (422) naming the first field its type refuses."""
    if not body.strip():
        raise ValidationException(extra=[{"key": "data", "message": "a JSON body is required"}])
    try:
        return msgspec.convert(decode(body), annotation, strict=True)
    except msgspec.ValidationError as exc:
        message, _, where = str(exc).partition(" - at `")
        key = where.rstrip("`") or "data"
        raise ValidationException(extra=[{"key": key, "message": message}]) from None


def decode(body: bytes) -> Any:
    """The JSON value of ``body``, every float of integral value in it an int;
    MalformedRequest when ``body`` is not UTF-8 JSON at most ``MAX_DEPTH`` deep."""
    try:
        value = msgspec.json.decode(body)
    except RecursionError:
        # msgspec's own bound (the interpreter's recursion limit), met long after ours.
        raise MalformedRequest(_too_deep()) from None
    except (UnicodeDecodeError, msgspec.DecodeError) as exc:
        raise MalformedRequest(_unreadable(body, exc)) from None
    return _integral(value)


def _integral(value: Any) -> Any:
    """``value`` (a decoded document, changed in place) with every float of integral value as
    an int; MalformedRequest when it is nested more than ``MAX_DEPTH`` deep. A walk with a
    stack of its own: a deep document cannot exhaust the interpreter's."""
    root = [value]
    pending: list[tuple[list[Any] | dict[str, Any], int]] = [(root, 0)]
    while pending:
        container, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise MalformedRequest(_too_deep())
        keys: Any = range(len(container)) if isinstance(container, list) else list(container)
        for key in keys:
            item = container[key]
            if isinstance(item, float) and item.is_integer() and abs(item) < EXACT:
                container[key] = int(item)
            elif isinstance(item, list | dict):
                pending.append((item, depth + 1))
    return root[0]


def _too_deep() -> str:
    return f"request body is nested more than {MAX_DEPTH} arrays or objects deep"


def _unreadable(body: bytes, exc: Exception) -> str:
    """Why ``body`` could not be decoded: the first byte that is not UTF-8 text (whichever
    error the decoder met first), else what keeps it from being JSON."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"request body is not UTF-8 text: byte {bad.start} ({bad.reason})"
    return f"request body is not valid JSON: {exc}"
