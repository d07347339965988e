"""What runs before every handler: ``OPTIONS`` answered for the whole path, and JSON bodies
read (``service/edge/bodies.py``).

Litestar gives each path an ``OPTIONS`` handler bound to the first route built for it; a
controller serving two methods on one path (``GET`` and ``POST /v1/admin/rebuild``) builds
it twice, and ``Allow`` then misses the methods added the second time. ``OPTIONS`` is
answered here from the application's map of paths to methods instead.
"""

from __future__ import annotations

from litestar import Response
from litestar.utils.scope.state import ScopeState

from service.edge import bodies
from service.edge.params import AnyRequest


async def before_request(request: AnyRequest) -> Response[None] | None:
    if request.method == "OPTIONS":
        return allowed_methods(request)
    await read_body(request)
    return None


def allowed_methods(request: AnyRequest) -> Response[None]:
    """The ``OPTIONS`` answer: every method the requested path serves."""
    served: set[str] = {"OPTIONS"}
    for path in request.route_handler.paths:
        served.update(request.app.route_handler_method_map.get(path, {}))
    return Response(None, status_code=204, headers={"Allow": ", ".join(sorted(served))})


async def read_body(request: AnyRequest) -> None:
    """The body of a handler that takes one, read before the handler (and its caller's key)
    is: 400 when it is not readable JSON, 422 naming the first field its type refuses.
    Read once: the value of its type is where Litestar takes the request's JSON from, so
    the handler's ``data`` is that value, not a second decoding of the body."""
    data = request.route_handler.parsed_fn_signature.parameters.get("data")
    if data is not None:
        value = bodies.read_body(await request.body(), data.annotation)
        ScopeState.from_scope(request.scope).json = value
