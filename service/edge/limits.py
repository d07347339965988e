"""Each request of the REST API and ``/mcp`` counts against its caller's limits before any
handler runs: one request of its rate, and one of its places in flight, held until the
answer has been sent. Over either, 429 with ``Retry-After`` (``service/application/limits.py``
says who a caller is and keeps the counts).

A request without a valid key takes no place: its handler answers 401. A request that sends
a key, right or wrong, is first held to the failed authentications of late, of its key and
of its client address, with the console's sign-ins (``service/application/wrong_keys.py``):
a wrong key past them answers 429 rather than 401, and so does a right key not yet served
from an address past its allowance, so that a guesser learns nothing more. A request sending
no key is not a guess, and answers 401. ``/health`` and ``/metrics`` answer whatever else
runs, and the console (``/ui``) counts its own pages and sign-ins.
"""

from __future__ import annotations

from litestar.datastructures import Headers
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from service.application import Services
from service.application.auth import Principal, presented_key
from service.errors import Unauthorized
from service.lib.fair import asking
from service.net.addresses import client_of

UNKNOWN = "unknown"
"""The address of a client the server does not know (a Unix socket)."""


def unlimited(scope: Scope) -> bool:
    """``/health``, ``/metrics``, and the console's paths."""
    path = scope["path"]
    return path in ("/health", "/metrics") or path == "/ui" or path.startswith("/ui/")


class RequestLimits(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)
    should_bypass_for_scope = staticmethod(unlimited)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        services: Services = scope["app"].state.services
        principal = authenticated(services, scope)
        authorization = Headers.from_scope(scope).get("authorization")
        if services.keys.enabled and authorization is not None:
            key = presented_key(authorization)
            services.limits.key_sent(client_address(scope), key, right=principal is not None)
        caller = services.limits.caller(principal) if principal is not None else None
        # The reads and writes of a request take turns with other callers' (its key's, else
        # its address's).
        address = f"client {client_of(client_address(scope))}"
        who = services.limits.asker(principal) if principal is not None else address
        with asking(who):
            if caller is None:
                await next_app(scope, receive, send)
                return
            services.limits.request(caller)
            with services.limits.in_flight(caller):
                await next_app(scope, receive, send)


def authenticated(services: Services, scope: Scope) -> Principal | None:
    """The caller of a request, at its address; None when its key is not one."""
    try:
        principal = services.keys.authenticate(Headers.from_scope(scope).get("authorization"))
    except Unauthorized:
        return None
    return principal.at(client_address(scope))


def client_address(scope: Scope) -> str:
    """The address of the client that sent the request: its connection's peer, or the
    client a trusted proxy named (``service/edge/forwarded.py`` set it)."""
    client = scope.get("client")
    return str(client[0]) if client else UNKNOWN
