"""The one place the application is assembled."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
import msgspec
from litestar import Litestar, MediaType, Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi import OpenAPIConfig

from schemas import wire
from service.api.admin import AdminController
from service.api.answers import AnswersController
from service.api.collections import CollectionsController, DocumentsController
from service.api.deps import DEPENDENCIES
from service.api.events import EventsController
from service.api.health import health
from service.api.search import SearchController
from service.api.stats import stats
from service.errors import StrataError
from service.mcp import mcp_endpoint, mcp_lifespan
from service.resources import Resources, load_reranker, open_resources
from service.settings import Settings

log = logging.getLogger("strata")
PROBLEM_JSON = "application/problem+json"


def create_app(settings: Settings | None = None, *, resources: Resources | None = None) -> Litestar:
    """The Litestar app. Given ``resources`` it uses them (and leaves closing to the caller);
    otherwise it opens them from ``settings`` at start-up and closes them at shutdown."""
    settings = settings or (resources.settings if resources else Settings.from_env(os.environ))

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        if resources is not None:
            app.state.resources = resources
            yield
            return
        limiter = anyio.to_thread.current_default_thread_limiter()
        limiter.total_tokens = settings.search_threads
        opened = open_resources(settings)
        app.state.resources = opened
        for reason in opened.degraded:
            log.warning("degraded: %s", reason)
        if settings.jobs == "on":
            opened.jobs.start()
        threading.Thread(
            target=load_reranker, args=(settings, opened.retriever), daemon=True
        ).start()
        try:
            yield
        finally:
            opened.close()

    return Litestar(
        route_handlers=[
            EventsController,
            SearchController,
            AnswersController,
            CollectionsController,
            DocumentsController,
            AdminController,
            stats,
            health,
            mcp_endpoint,
        ],
        dependencies=DEPENDENCIES,
        lifespan=[lifespan, mcp_lifespan],
        exception_handlers={
            StrataError: _strata_problem,
            ValidationException: _validation_problem,
            HTTPException: _http_problem,
            Exception: _internal_problem,
        },
        request_max_body_size=settings.max_body_bytes,
        openapi_config=OpenAPIConfig(title="strata", version="0.1.0", path="/schema"),
    )


def problem(
    status: int,
    title: str,
    detail: str,
    errors: list[wire.FieldProblem] | None = None,
    headers: dict[str, str] | None = None,
) -> Response[bytes]:
    body = wire.Problem(
        type="about:blank", title=title, status=status, detail=detail, errors=errors or []
    )
    return Response(
        msgspec.json.encode(body), status_code=status, media_type=PROBLEM_JSON, headers=headers
    )


def _strata_problem(_: Request[Any, Any, Any], exc: StrataError) -> Response[bytes]:
    errors = [wire.FieldProblem(e.field, e.message) for e in getattr(exc, "errors", [])]
    headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
    return problem(exc.status, exc.title, exc.detail, errors, headers)


def _validation_problem(_: Request[Any, Any, Any], exc: ValidationException) -> Response[bytes]:
    """Litestar's decoding errors: malformed JSON is 400, a bad field is 422 naming it."""
    extra = exc.extra if isinstance(exc.extra, list) else []
    errors = [
        wire.FieldProblem(_field_name(item), str(item.get("message", "invalid")))
        for item in extra
        if isinstance(item, dict)
    ]
    if not errors:
        return problem(400, "Malformed request", str(exc.detail))
    detail = "; ".join(f"{e.field}: {e.message}" for e in errors)
    return problem(422, "Invalid input", detail, errors)


def _field_name(item: dict[str, Any]) -> str:
    key = str(item.get("key") or "body")
    key = key[2:] if key.startswith("$.") else key
    return "body" if key == "data" else key


def _http_problem(_: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    detail = str(exc.detail)
    if exc.status_code == 400:
        detail = f"request body is not valid JSON: {detail}"
    elif exc.status_code == 413:
        detail = "request body is larger than STRATA_MAX_BODY_BYTES"
    title = "Malformed request" if exc.status_code == 400 else _title(exc.status_code)
    return problem(exc.status_code, title, detail, headers=exc.headers)


def _internal_problem(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return problem(500, "Internal error", "the service failed; see its log")


def _title(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


__all__ = ["MediaType", "create_app"]
