"""The headers every console response carries: what the browser may load and run for it."""

from __future__ import annotations

from litestar.datastructures import MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
"""No inline script or style, nothing from elsewhere, never framed."""

SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}
PAGE_HEADERS = {**SECURITY_HEADERS, "Cache-Control": "no-store"}
"""Pages show what a key may read: no cache keeps them."""
STATIC = "/ui/static/"


class ConsoleHeaders(ASGIMiddleware):
    """Adds ``SECURITY_HEADERS`` (and, but for static files, ``Cache-Control: no-store``)
    to every response of the routes it wraps, error pages included."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        wanted = SECURITY_HEADERS if scope["path"].startswith(STATIC) else PAGE_HEADERS

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableScopeHeaders.from_message(message)
                for name, value in wanted.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await next_app(scope, receive, with_headers)
