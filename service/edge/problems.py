"""Every error as an RFC 9457 problem-details response, mapped in one place."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

import msgspec
from litestar import Response
from litestar.exceptions import HTTPException, ValidationException

from schemas import wire
from service.domain.errors import EngineUnavailable
from service.edge.observe import identify
from service.edge.params import AnyRequest
from service.errors import StrataError, TooManyRequests

log = logging.getLogger("strata")
PROBLEM_JSON = "application/problem+json"


def problem(
    request: AnyRequest,
    status: int,
    title: str,
    detail: str,
    errors: list[wire.FieldProblem] | None = None,
    headers: dict[str, str] | None = None,
) -> Response[bytes]:
    body = wire.Problem(
        type="about:blank",
        title=title,
        status=status,
        detail=detail,
        errors=errors or [],
        request_id=identify(request.scope),
    )
    return Response(
        msgspec.json.encode(body), status_code=status, media_type=PROBLEM_JSON, headers=headers
    )


def _strata_problem(request: AnyRequest, exc: StrataError) -> Response[bytes]:
    errors = [wire.FieldProblem(e.field, e.message) for e in getattr(exc, "errors", [])]
    return problem(request, exc.status, exc.title, exc.detail, errors, error_headers(exc))


def error_headers(exc: StrataError) -> dict[str, str] | None:
    """What a response says besides its body: how to authenticate (401), when to retry (429)."""
    if exc.status == 401:
        return {"WWW-Authenticate": "Bearer"}
    if isinstance(exc, TooManyRequests):
        return {"Retry-After": str(exc.retry_after)}
    return None


def _validation_problem(request: AnyRequest, exc: ValidationException) -> Response[bytes]:
    """Litestar's decoding errors: malformed JSON is 400, a bad field is 422 naming it (a
    parameter by the name it has in the URL)."""
    extra = exc.extra if isinstance(exc.extra, list) else []
    errors = [
        wire.FieldProblem(_field_name(request, item), str(item.get("message", "invalid")))
        for item in extra
        if isinstance(item, dict)
    ]
    if not errors and isinstance(exc.__cause__, KeyError):  # a required parameter is missing
        errors = [wire.FieldProblem(str(exc.__cause__.args[0]), "is required")]
    if not errors:
        return problem(request, 400, "Malformed request", str(exc.detail))
    detail = "; ".join(f"{e.field}: {e.message}" for e in errors)
    return problem(request, 422, "Invalid input", detail, errors)


def _field_name(request: AnyRequest, item: dict[str, Any]) -> str:
    key = str(item.get("key") or "body")
    key = key[2:] if key.startswith("$.") else key
    if key == "data":
        return "body"
    parameter = request.route_handler.parsed_fn_signature.parameters.get(key)
    alias = getattr(parameter and parameter.kwarg_definition, "name", None)
    return alias if isinstance(alias, str) else key


def _http_problem(request: AnyRequest, exc: HTTPException) -> Response[bytes]:
    detail = str(exc.detail)
    if exc.status_code == 400:
        detail = f"request body is not valid JSON: {detail}"
    elif exc.status_code == 413:
        detail = "request body is larger than STRATA_MAX_BODY_BYTES"
    title = "Malformed request" if exc.status_code == 400 else status_title(exc.status_code)
    return problem(request, exc.status_code, title, detail, headers=exc.headers)


RETRY_AFTER = 5
"""Seconds a client is asked to wait before retrying when an engine is unavailable."""


def _unavailable_problem(request: AnyRequest, exc: EngineUnavailable) -> Response[bytes]:
    """An engine the request cannot do without (the ledger, or the vector store for a
    write's own vectors) is away: 503, to be retried."""
    log.warning("answered 503: %s", exc)
    return problem(
        request,
        503,
        "Service unavailable",
        f"{exc}; retry later",
        headers={"Retry-After": str(RETRY_AFTER)},
    )


def _internal_problem(request: AnyRequest, exc: Exception) -> Response[bytes]:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return problem(request, 500, "Internal error", "the service failed; see its log")


def status_title(status: int) -> str:
    """The status's reason phrase (``Not Found``); ``Error`` for a status HTTP does not name."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


EXCEPTION_HANDLERS = {
    StrataError: _strata_problem,
    EngineUnavailable: _unavailable_problem,
    ValidationException: _validation_problem,
    HTTPException: _http_problem,
    Exception: _internal_problem,
}
