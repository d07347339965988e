"""Each request of the REST API and ``/mcp`` counts against its caller's limits before any
handler runs: one request of its rate, and one of its places in flight, held until the
answer has been sent. Over either, 429 with ``Retry-After`` (``service/application/limits.py``
says who a caller is and keeps the counts).

A request without a valid key takes no place: its handler answers 401. But a key that is
refused counts against its client address, with the console's failed sign-ins
(STRATA_SIGN_IN_FAILURES_PER_MINUTE): past that allowance every request of the address that
sends a key answers 429 before its key is checked, so that a guesser learns nothing more,
while a key sent from another address is served as ever. A request sending no key is not
a guess, and answers 401. ``/health`` and ``/metrics`` answer whatever else runs, and the
console (``/ui``) counts its own pages and sign-ins.
"""

from __future__ import annotations

from litestar.datastructures import Headers
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from service.application import Services
from service.application.auth import Principal
from service.errors import Unauthorized

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
        presented = services.keys.enabled and "authorization" in Headers.from_scope(scope)
        if presented:
            services.limits.check_key(client_address(scope))
        principal = authenticated(services, scope)
        if principal is None and presented:
            services.limits.failed_key(client_address(scope))  # a guess, or a key mistyped
        caller = services.limits.caller(principal) if principal is not None else None
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
    """The address of the client that sent the request (the proxy's, behind a proxy the
    server does not trust with ``X-Forwarded-For``)."""
    client = scope.get("client")
    return str(client[0]) if client else UNKNOWN
