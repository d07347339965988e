"""Errors on console routes as pages (the API answers problem details instead)."""

from __future__ import annotations

import logging
from typing import Any

from litestar import Response
from litestar.exceptions import HTTPException, ValidationException

from service.edge.params import AnyRequest
from service.edge.problems import error_headers, status_title
from service.errors import StrataError
from service.ui.links import query
from service.ui.pages import page, redirect

log = logging.getLogger("strata")
SIGN_IN = "/ui/sign-in"


class SignInNeeded(Exception):
    """Keys are configured and the caller has not signed in."""

    def __init__(self, then: str) -> None:
        super().__init__(then)
        self.then = then
        """Where to go once signed in."""


def _sign_in(request: AnyRequest, exc: SignInNeeded) -> Response[Any]:
    return redirect(request, query(SIGN_IN, next=exc.then))


def _strata(request: AnyRequest, exc: StrataError) -> Response[Any]:
    errors = [f"{e.field}: {e.message}" for e in getattr(exc, "errors", [])]
    return error_page(request, exc.status, exc.title, exc.detail, errors, error_headers(exc))


def _validation(request: AnyRequest, exc: ValidationException) -> Response[Any]:
    extra = exc.extra if isinstance(exc.extra, list) else []
    errors = [
        f"{item.get('key', 'parameter')}: {item.get('message', 'invalid')}"
        for item in extra
        if isinstance(item, dict)
    ]
    return error_page(request, 422, "Invalid input", "The address names a bad value.", errors)


def _http(request: AnyRequest, exc: HTTPException) -> Response[Any]:
    status = exc.status_code
    detail = {
        404: "There is no such page.",
        405: "This page does not take that method.",
        413: "The form is larger than the service accepts.",
    }.get(status, str(exc.detail))
    return error_page(request, status, status_title(status), detail, [], exc.headers)


def _internal(request: AnyRequest, exc: Exception) -> Response[Any]:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_page(request, 500, "Internal error", "The service failed; see its log.", [])


def error_page(
    request: AnyRequest,
    status: int,
    title: str,
    detail: str,
    errors: list[str],
    headers: dict[str, str] | None = None,
) -> Response[Any]:
    return page(
        request,
        "error.html",
        status=status,
        headers=headers,
        status_code=status,
        title=title,
        detail=detail,
        errors=errors,
    )


EXCEPTION_HANDLERS = {
    SignInNeeded: _sign_in,
    StrataError: _strata,
    ValidationException: _validation,
    HTTPException: _http,
    Exception: _internal,
}
