"""What runs before every handler: ``OPTIONS`` answered for the whole path, and JSON bodies
checked strictly against their types.

Litestar gives each path an ``OPTIONS`` handler bound to the first route built for it; a
controller serving two methods on one path (``GET`` and ``POST /v1/admin/rebuild``) builds
it twice, and ``Allow`` then misses the methods added the second time. ``OPTIONS`` is
answered here from the application's map of paths to methods instead.

Litestar converts a decoded body to its type leniently (``"10"`` or ``10.0`` for an integer,
``0`` for a boolean), which suits query strings but lets a body the schema refuses through.
A body is checked here as the schema reads it first: strict types, except that a number
with an integral value is an integer, as JSON Schema has it.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import ValidationException

EXACT = 2**53
"""Largest integral float taken as an integer: beyond it a float is not exact."""


async def before_request(request: Request[Any, Any, Any]) -> Response[None] | None:
    if request.method == "OPTIONS":
        return allowed_methods(request)
    await check_body(request)
    return None


def allowed_methods(request: Request[Any, Any, Any]) -> Response[None]:
    """The ``OPTIONS`` answer: every method the requested path serves."""
    served: set[str] = {"OPTIONS"}
    for path in request.route_handler.paths:
        served.update(request.app.route_handler_method_map.get(path, {}))
    return Response(None, status_code=204, headers={"Allow": ", ".join(sorted(served))})


async def check_body(request: Request[Any, Any, Any]) -> None:
    """ValidationException naming the first field of the body its type refuses."""
    data = request.route_handler.parsed_fn_signature.parameters.get("data")
    if data is None:
        return
    body = await request.body()
    if not body.strip():
        raise ValidationException(extra=[{"key": "data", "message": "a JSON body is required"}])
    try:
        decoded = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return  # Litestar answers 400 for a body that is not JSON
    try:
        msgspec.convert(_integers(decoded), data.annotation, strict=True)
    except msgspec.ValidationError as exc:
        message, _, where = str(exc).partition(" - at `")
        key = where.rstrip("`") or "data"
        raise ValidationException(extra=[{"key": key, "message": message}]) from None


def _integers(value: Any) -> Any:
    """``value`` with every float of integral value as an int."""
    if isinstance(value, float) and value.is_integer() and abs(value) < EXACT:
        return int(value)
    if isinstance(value, list):
        return [_integers(v) for v in value]
    if isinstance(value, dict):
        return {k: _integers(v) for k, v in value.items()}
    return value
