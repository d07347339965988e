"""Every HTTP request seen from outside: its id (``X-Request-ID``, the caller's when it sends
a fit one), its access log line, its count and duration by route template, method and
status, and, with tracing on, its span (continuing the caller's ``traceparent``).

A request no route serves counts and is logged too, as route ``unmatched``: Litestar finds
the route before its middleware runs, so ``ObservedRequests`` wraps the whole application
(``observed``), routing included, rather than each route."""

from __future__ import annotations

import logging
from time import perf_counter
from typing import Any

from litestar import Litestar
from litestar.datastructures import Headers, MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.exceptions import HTTPException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from opentelemetry import propagate
from opentelemetry.trace import SpanKind

from service.errors import StrataError
from service.telemetry import Telemetry
from service.telemetry.logs import REQUEST_ID, request_id

REQUEST_ID_HEADER = "x-request-id"
UNMATCHED = "unmatched"
"""The route of a request no route served (a 404 before any handler)."""
access = logging.getLogger("strata.access")


def identify(scope: Scope) -> str:
    """The request's id, chosen once: the caller's fit ``X-Request-ID``, else a new one."""
    state: dict[str, Any] = scope.setdefault("state", {})
    rid = state.get("request_id")
    if rid is None:
        rid = state["request_id"] = request_id(Headers.from_scope(scope).get(REQUEST_ID_HEADER))
    return str(rid)


async def send_request_id(message: Message, scope: Scope) -> None:
    """Every response (a 404 of no route too) says its request's id."""
    if message["type"] == "http.response.start":
        MutableScopeHeaders.from_message(message)[REQUEST_ID_HEADER] = identify(scope)


def route_of(scope: Scope) -> str:
    """The template of the route that served the request; ``unmatched`` for none (never the
    path itself: it is the caller's text, unbounded)."""
    return str(scope.get("path_template") or UNMATCHED)


def status_of(exc: BaseException) -> int:
    """The status the error handlers answer an error raised past this middleware with."""
    if isinstance(exc, HTTPException):
        return exc.status_code
    if isinstance(exc, StrataError):
        return exc.status
    return 500


def observed(app: Litestar) -> Litestar:
    """``app`` with every request it answers observed, those no route serves included."""
    app.asgi_handler = ObservedRequests()(app.asgi_handler)
    return app


class ObservedRequests(ASGIMiddleware):
    """What runs inside it (routing, the guard, the limits, the handler) is timed and
    counted, errors included."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        rid = identify(scope)
        token = REQUEST_ID.set(rid)
        telemetry: Telemetry = scope["app"].state.services.telemetry
        method = str(scope.get("method", "GET"))
        path = scope["path"]  # as asked for: routing rewrites it for a mounted app
        status = 500
        started = perf_counter()

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            tracer = telemetry.tracing.tracer
            if tracer is None:
                await next_app(scope, receive, sending)
            else:
                carrier = dict(Headers.from_scope(scope).items())
                with tracer.start_as_current_span(
                    method,
                    context=propagate.extract(carrier),
                    kind=SpanKind.SERVER,
                    attributes={"http.request.method": method},
                ) as span:
                    try:
                        await next_app(scope, receive, sending)
                    finally:
                        route = route_of(scope)  # known once routing has run
                        span.update_name(f"{method} {route}")
                        span.set_attribute("http.route", route)
                        span.set_attribute("http.response.status_code", status)
                        span.set_attribute("strata.request_id", rid)
        except Exception as exc:
            status = status_of(exc)
            raise
        finally:
            seconds = perf_counter() - started
            route = route_of(scope)
            if telemetry.metrics is not None:
                telemetry.metrics.request(route, method, status, seconds)
            access.info(
                "%s %s %d %.1fms",
                method,
                path,
                status,
                seconds * 1000,
                extra={"method": method, "route": route, "status": status},
            )
            REQUEST_ID.reset(token)
