"""A request that a trusted proxy forwards (STRATA_TRUSTED_PROXIES) is the client's: its
``client`` becomes the address ``X-Forwarded-For`` names and its scheme the one
``X-Forwarded-Proto`` names, before anything else reads them (``service/net/proxies.py``
says which address is read). The limits, the failed-key counts, the console's sign-in and
``/mcp`` then all see one client address, whatever they are. Any other request keeps its
connection's peer, whatever its headers say: ``strata serve`` turns uvicorn's own reading
of them off.
"""

from __future__ import annotations

from litestar import Litestar
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from service.net.proxies import TrustedProxies

SCHEMES = {"http", "https"}


def forwarded(app: Litestar, proxies: TrustedProxies) -> Litestar:
    """``app`` reading the client of a request that a proxy in ``proxies`` forwarded;
    ``app`` as it is when no proxy is trusted."""
    if proxies:
        app.asgi_handler = ForwardedClients(proxies)(app.asgi_handler)
    return app


class ForwardedClients(ASGIMiddleware):
    scopes = (ScopeType.HTTP, ScopeType.WEBSOCKET)

    def __init__(self, proxies: TrustedProxies) -> None:
        self.proxies = proxies

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        peer = scope.get("client")
        if peer and self.proxies.trusts(peer[0]):
            forwarded_for: list[str] = []
            proto = ""
            for name, value in scope["headers"]:
                if name == b"x-forwarded-for":
                    forwarded_for.append(value.decode("latin-1"))
                elif name == b"x-forwarded-proto":
                    proto = value.decode("latin-1").rpartition(",")[2].strip().lower()
            client = self.proxies.client(peer[0], forwarded_for)
            if client != peer[0]:
                scope["client"] = (client, 0)
            if proto in SCHEMES and scope["type"] == ScopeType.HTTP:
                scope["scheme"] = proto
        await next_app(scope, receive, send)
