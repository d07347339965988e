"""Requests a web page could forge are refused before any handler runs.

Without API keys every caller is an admin, and the service listens on loopback only. A page
the user visits can still reach it: its browser sends a "simple" cross-site POST (a
``text/plain`` or form body, no preflight), and a page on a name rebound to 127.0.0.1 (DNS
rebinding) reads the answers. So:

- a request with a body must say ``Content-Type: application/json`` (or
  ``application/x-ndjson``, an export file), which no page can send cross-site without the
  preflight this service never grants (415 otherwise; keys or not);
- without keys, ``Host`` must be a loopback name or address and ``Origin``, when sent, a
  loopback ``http`` origin, unless listed in STRATA_ALLOWED_ORIGINS (403 otherwise);
- with keys, a sent ``Origin`` must be listed when STRATA_ALLOWED_ORIGINS is set. Without
  the list it is not checked: a page cannot attach the bearer key cross-site without a
  preflight either.

``/mcp`` is held to the same rules as ``/v1`` (its own checks in the MCP SDK are off).

The console (``/ui``) posts forms, so its bodies need not be JSON: each of its forms carries
a CSRF token instead, and its session cookie is SameSite=Strict. Its ``Host`` and ``Origin``
are checked as above, except that a page of the console itself (``Origin`` naming the
``Host`` the request was sent to) may post to it when STRATA_ALLOWED_ORIGINS is set.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from litestar.datastructures import Headers
from litestar.enums import ScopeType
from litestar.exceptions import HTTPException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from service.errors import Forbidden
from service.net.addresses import is_loopback, origin
from service.settings import ServerSettings

JSON = "application/json"
JSON_LINES = "application/x-ndjson"
"""Also a type no page can send cross-site without a preflight: export files are sent as it."""
CONSOLE = "/ui"
OTHERS = "without API keys only loopback ones are served (STRATA_ALLOWED_ORIGINS lists others)"


class RequestGuard(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    def __init__(self, server: ServerSettings) -> None:
        self.open = not server.has_keys
        self.origins = server.origins
        self.hosts = frozenset(urlsplit(o).netloc for o in self.origins)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        headers = Headers.from_scope(scope)
        console = scope["path"] == CONSOLE or scope["path"].startswith(CONSOLE + "/")
        if self.open:
            self.check_host(headers.get("host", ""))
        if "origin" in headers and not (console and same_origin(headers)):
            self.check_origin(headers["origin"])
        if has_body(headers) and not console:
            check_json(headers.get("content-type", ""))
        await next_app(scope, receive, send)

    def check_host(self, host: str) -> None:
        parts = urlsplit(origin(f"http://{host}") or "")
        if not (is_loopback(parts.hostname or "") or (parts.netloc and parts.netloc in self.hosts)):
            raise Forbidden(f"Host {host!r} is not a loopback name or address; {OTHERS}")

    def check_origin(self, sent: str) -> None:
        normal = origin(sent) or ""
        if normal in self.origins:
            return
        if self.open:
            parts = urlsplit(normal)
            if parts.scheme != "http" or not is_loopback(parts.hostname or ""):
                raise Forbidden(f"Origin {sent!r} is not a loopback http origin; {OTHERS}")
        elif self.origins:
            raise Forbidden(f"Origin {sent!r} is not listed in STRATA_ALLOWED_ORIGINS")


def same_origin(headers: Headers) -> bool:
    """Whether ``Origin`` names the host the request was sent to (scheme aside: a proxy in
    front may end TLS)."""
    sent = urlsplit(origin(headers["origin"]) or "").netloc
    return bool(sent) and sent == urlsplit(origin(f"http://{headers.get('host', '')}") or "").netloc


def has_body(headers: Headers) -> bool:
    return headers.get("content-length", "0").strip() != "0" or "transfer-encoding" in headers


def check_json(content_type: str) -> None:
    if content_type.split(";", 1)[0].strip().lower() not in (JSON, JSON_LINES):
        raise HTTPException(
            status_code=415,
            detail=f"Content-Type must be {JSON} (or {JSON_LINES} for an export file) for a "
            f"request with a body, not {content_type!r}",
        )
