"""The OpenAPI document, true to what the service checks and answers.

Litestar writes the operations; two things are then put right in the served JSON:

- every body schema is msgspec's own (``schemas/json``), so it states each rule msgspec
  enforces: patterns and bounds of list items, exclusive bounds, no unknown fields;
- every operation lists the problem-details responses its kind can give (a body: 400, 413,
  415, 422; parameters: 422; ``/v1``: 403, and 401 with keys; any request: 403 from the
  guard, and 429 with ``Retry-After`` from the limits where they apply: with keys, or per
  client address), besides those its handler declares with ``problems(...)``.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.plugins import JsonRenderPlugin

from schemas import wire
from service.edge.params import AnyRequest
from service.edge.problems import PROBLEM_JSON

REF = "#/components/schemas/{name}"
METHODS = ("get", "put", "post", "delete", "patch")
WHEN = {
    400: "The body is not valid JSON.",
    401: "API keys are configured and the request has no valid `Authorization: Bearer <key>`.",
    403: "The key may not do this or use that namespace; or, without keys, the request's "
    "`Host` or `Origin` is not loopback (see STRATA_ALLOWED_ORIGINS).",
    404: "No such entry, interaction, collection, document or job.",
    409: "It exists already, or is already running; or a collection's folder may not be "
    "scanned here (not on this server, outside STRATA_COLLECTION_ROOTS, too many files).",
    413: "The body is larger than STRATA_MAX_BODY_BYTES, or has more than STRATA_MAX_BATCH events.",
    415: "The request has a body that is not `Content-Type: application/json`.",
    422: "A field or parameter is missing, unknown or invalid; `errors` names each one.",
    429: "The key (without keys: the client address) is over a limit of its role, which "
    "`detail` names: requests per second, requests in flight, or chunks embedded per minute "
    "(STRATA_REQUESTS_PER_SECOND, STRATA_REQUESTS_IN_FLIGHT, STRATA_CHUNKS_EMBEDDED_PER_MINUTE). "
    "`Retry-After` says in how many seconds to try again.",
}
UNLIMITED = ("/health",)
"""Paths no limit applies to."""
RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before trying again.",
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    }
}
BODY = (400, 413, 415, 422)
PARAMETERS = (422,)


def problems(*statuses: int) -> dict[int, ResponseSpec]:
    """The problem-details responses only this operation's use case gives (404, 409, ...);
    the document adds those every operation of its kind gives."""
    return {status: _spec(status) for status in statuses}


def _spec(status: int) -> ResponseSpec:
    return ResponseSpec(
        wire.Problem, description=WHEN[status], media_type=PROBLEM_JSON, generate_examples=False
    )


class ContractDocument(JsonRenderPlugin):
    """Serves ``openapi.json`` put right as the module says; ``keys``: whether the service
    has API keys (then ``/v1`` operations declare the bearer scheme and 401); ``limited``:
    whether limits apply to callers (then operations declare 429)."""

    def __init__(self, *, keys: bool, limited: bool = False) -> None:
        super().__init__()
        self.keys = keys
        self.limited = limited

    def render(self, request: AnyRequest, openapi_schema: dict[str, Any]) -> bytes:
        document = contract(openapi_schema, keys=self.keys, limited=self.limited)
        return self.render_json(request, document)


def contract(document: dict[str, Any], *, keys: bool, limited: bool = False) -> dict[str, Any]:
    """A copy of Litestar's ``document`` with msgspec's schemas and every problem response."""
    document = msgspec.json.decode(msgspec.json.encode(document))
    components = document.setdefault("components", {})
    components["schemas"] = {**components.get("schemas", {}), **_body_schemas(components)}
    if keys:
        components["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                shared = item.get("parameters", [])
                _complete(item[method], path, shared, keys=keys, limited=limited)
    return document


def _body_schemas(components: dict[str, Any]) -> dict[str, Any]:
    """msgspec's schema of every wire type Litestar named, and of problem details."""
    named = [getattr(wire, name, None) for name in components.get("schemas", {})]
    kinds = [k for k in named if isinstance(k, type) and issubclass(k, msgspec.Struct)]
    return wire.schema_components([*kinds, wire.Problem], ref_template=REF)


def _complete(
    operation: dict[str, Any], path: str, shared: list[dict[str, Any]], *, keys: bool, limited: bool
) -> None:
    responses: dict[str, Any] = operation.setdefault("responses", {})
    # Litestar's own 400 describes its error body, which the service never sends.
    if PROBLEM_JSON not in responses.get("400", {}).get("content", {}):
        responses.pop("400", None)
    statuses = {403}
    if "requestBody" in operation:
        statuses.update(BODY)
    if operation.get("parameters") or shared:
        statuses.update(PARAMETERS)
    if path.startswith("/v1/") and keys:
        statuses.add(401)
        operation["security"] = [{"bearer": []}]
    if limited and path not in UNLIMITED:
        statuses.add(429)
    for status in sorted(statuses):
        response: dict[str, Any] = {
            "description": WHEN[status],
            "content": {PROBLEM_JSON: {"schema": {"$ref": REF.format(name="Problem")}}},
        }
        if status == 429:
            response["headers"] = RETRY_AFTER
        responses.setdefault(str(status), response)
