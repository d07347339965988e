"""The tools served by the service itself at ``/mcp`` (streamable HTTP), for the caller
whose API key came with each request.

The transport is stateless: every call is one ``POST`` answered with JSON. No stream is
offered for the server to send on its own (``GET``) and there is no session to end
(``DELETE``): other methods answer 405, as the streamable-HTTP transport allows, so that no
request waits open holding one of its key's places in flight."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar
from litestar.datastructures import Headers
from litestar.exceptions import MethodNotAllowedException
from litestar.handlers import asgi
from litestar.types import Receive, Scope, Send
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from service.application import Services
from service.application.auth import Principal
from service.edge.limits import client_address
from service.mcp.gateways import Gateway, LocalGateway
from service.mcp.tools import build_server

PRINCIPAL = "strata.principal"
"""Scope key under which the ``/mcp`` endpoint hands the authenticated caller to the tools."""

SERVED = "POST"
"""The one method ``/mcp`` serves."""

GUARDED = TransportSecuritySettings(enable_dns_rebinding_protection=False)
"""The SDK's own checks of ``Host`` and ``Origin`` are off: the service's guard
(``service/edge/guard.py``) checks them for ``/mcp`` as for every route, with
STRATA_ALLOWED_ORIGINS."""


def _local_gateway(ctx: Context) -> Gateway:
    request = ctx.request_context.request  # the HTTP request that carried this tool call
    if request is None or not isinstance(request.scope.get(PRINCIPAL), Principal):
        raise ToolError("no authenticated caller for this request")
    return LocalGateway(request.app.state.services, request.scope[PRINCIPAL])


@asynccontextmanager
async def mcp_lifespan(app: Litestar) -> AsyncIterator[None]:
    """Run the ``/mcp`` session manager for the app's lifetime (after its services open)."""
    services: Services = app.state.services
    server = build_server(_local_gateway)
    # Stateless, plain JSON answers: each tool call is one request, authenticated on its own,
    # so no session needs keeping (and any worker can answer it).
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        max_request_body_size=services.settings.server.max_body_bytes,
        transport_security=GUARDED,
    )
    manager: StreamableHTTPSessionManager = server.session_manager
    app.state.mcp = manager
    async with manager.run():
        yield


@asgi("/mcp", is_mount=True, copy_scope=False)
async def mcp_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
    """MCP over streamable HTTP, with the REST API's keys (401 without a valid one)."""
    app = scope["app"]
    services: Services = app.state.services
    principal = services.keys.authenticate(Headers.from_scope(scope).get("authorization"))
    principal = principal.at(client_address(scope))
    if scope.get("method") != SERVED:
        raise MethodNotAllowedException(
            detail=f"/mcp serves {SERVED} only: it is stateless and offers no event stream",
            headers={"Allow": SERVED},
        )
    manager: StreamableHTTPSessionManager = app.state.mcp
    await manager.handle_request({**scope, PRINCIPAL: principal}, receive, send)  # type: ignore[arg-type]
