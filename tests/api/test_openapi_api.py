"""The OpenAPI document says what the service checks and answers, and the service keeps to
it: every error status with its problem details, the rules of parameters and bodies, the
methods of each path. (tests/e2e/test_openapi.py fuzzes the real server against it.)"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from schemas import wire
from service.domain.entries import ID_PATTERN
from tests.http import problem

PROBLEM = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}


def operations(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        f"{method.upper()} {path}": operation
        for path, item in spec["paths"].items()
        for method, operation in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    }


def test_every_error_an_operation_gives_is_documented_as_problem_details(
    client: TestClient[Litestar],
) -> None:
    documented = operations(client.get("/schema/openapi.json").json())
    for name, operation in documented.items():
        errors = {s: r for s, r in operation["responses"].items() if int(s) >= 400}
        assert "403" in errors, name  # the guard may refuse any request
        assert all(r["content"] == PROBLEM for r in errors.values()), name
        if "requestBody" in operation:
            assert {"400", "413", "415", "422"} <= set(errors), name
        if operation.get("parameters"):
            assert "422" in errors, name
        assert "401" not in errors and "security" not in operation, "no keys, no 401"
    assert {"404", "409"} <= set(documented["POST /v1/admin/jobs/{name}/run"]["responses"])
    assert "404" in documented["GET /v1/entries/{entry_id}"]["responses"]
    assert "201" in documented["POST /v1/events"]["responses"]
    assert "202" in documented["POST /v1/admin/rebuild"]["responses"]


def test_with_keys_the_document_declares_the_bearer_scheme(keyed: TestClient[Litestar]) -> None:
    spec = keyed.get("/schema/openapi.json").json()
    assert spec["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    for name, operation in operations(spec).items():
        if name.split()[1].startswith("/v1/"):
            assert operation["security"] == [{"bearer": []}], name
            assert "401" in operation["responses"], name
    problem(keyed.get("/v1/stats"), 401)


def test_body_schemas_state_what_msgspec_and_the_use_cases_check(
    client: TestClient[Litestar],
) -> None:
    schemas = client.get("/schema/openapi.json").json()["components"]["schemas"]
    event = schemas["Event"]
    assert event["additionalProperties"] is False
    assert event["properties"]["ttl_days"]["anyOf"][0]["exclusiveMinimum"] == 0
    assert event["properties"]["text"]["pattern"] == wire.NOT_BLANK["pattern"]
    assert event["allOf"] == wire.Event.RULES["allOf"]
    promote = schemas["PromoteRequest"]["properties"]["ids"]["items"]
    assert promote["pattern"] == ID_PATTERN
    assert schemas["Problem"]["required"] == ["type", "title", "status", "detail"]


def test_the_blank_rule_matches_what_the_service_strips() -> None:
    not_blank = re.compile(wire.NOT_BLANK["pattern"])
    for code in range(0x110000):
        assert (not_blank.search(chr(code)) is None) == chr(code).isspace(), hex(code)


@pytest.mark.parametrize(
    ("pattern", "allowed"),
    [
        ("notes/**/*.md", True),
        (" notes/a.md , strata://other/b.md,", True),
        ("notes/a.md", True),
        ("notes/", False),
        ("strata://notes", False),
        ("a.md", False),
        ("b.md, notes/a.md", False),
    ],
)
def test_the_documents_pattern_is_documented_as_it_is_read(
    client: TestClient[Litestar], pattern: str, allowed: bool
) -> None:
    assert bool(re.search(wire.DOCUMENTS, pattern)) == allowed
    sent = client.post("/v1/documents/batch", json={"pattern": pattern})
    # Allowed patterns name no collection that exists (404) or match nothing (200).
    assert (sent.status_code != 422) == allowed, sent.text


def test_parameters_are_checked_as_documented(client: TestClient[Litestar]) -> None:
    spec = client.get("/schema/openapi.json").json()
    entry = operations(spec)["GET /v1/entries/{entry_id}"]["parameters"]
    assert {p["name"]: p["schema"].get("pattern") for p in entry}["entry_id"] == ID_PATTERN
    lines = {p["name"]: p for p in operations(spec)["GET /v1/documents"]["parameters"]}
    assert lines["from"]["schema"]["minimum"] == 1 and lines["path"]["required"]

    def field(response: httpx.Response) -> str:
        return str(problem(response, 422)["errors"][0]["field"])

    assert field(client.get("/v1/entries/not an id")) == "entry_id"
    assert field(client.get("/v1/entries/x", params={"namespace": "a/b"})) == "namespace"
    assert field(client.get("/v1/documents")) == "path"
    assert field(client.get("/v1/documents", params={"path": "notes/a.md", "from": 0})) == "from"
    assert field(client.get("/v1/reports/daily", params={"date": "2027-02-30"})) == "date"
    report = client.get("/v1/reports/daily", params={"date": "2027-02-28"})
    assert report.json()["date"] == "2027-02-28"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "x", "rerank": 0}, "rerank"),
        ({"query": "x", "limit": "10"}, "limit"),
        ({"query": "x", "explain": "true"}, "explain"),
    ],
)
def test_bodies_are_read_as_their_schema_says(
    client: TestClient[Litestar], body: dict[str, Any], field: str
) -> None:
    """Not loosely: a number is not a boolean, a string not a number."""
    assert problem(client.post("/v1/search", json=body), 422)["errors"][0]["field"] == field


def test_a_whole_number_is_an_integer_and_a_missing_body_is_named(
    client: TestClient[Litestar],
) -> None:
    assert client.post("/v1/search", json={"query": "x", "limit": 10.0}).status_code == 200
    missing = problem(client.post("/v1/search", headers={"Content-Type": "application/json"}), 422)
    assert missing["errors"] == [{"field": "body", "message": "a JSON body is required"}]


def test_options_lists_every_method_of_the_path(client: TestClient[Litestar]) -> None:
    allowed = {
        "/v1/admin/rebuild": "GET, OPTIONS, POST",
        "/v1/collections": "GET, OPTIONS, POST",
        "/v1/collections/notes": "DELETE, GET, OPTIONS, PATCH",
        "/v1/entries/x": "DELETE, GET, OPTIONS",
        "/v1/events": "OPTIONS, POST",
    }
    for path, methods in allowed.items():
        answered = client.options(path)
        assert (answered.status_code, answered.headers["allow"]) == (204, methods), path
