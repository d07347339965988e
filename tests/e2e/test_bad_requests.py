"""What a real server answers a caller who sends what it cannot read, with a key or none:
every kind of undecodable body on every operation of its OpenAPI document, paths no route
serves, and paths that would forge a line of its log. Never a server error, always problem
details, one access line a request, no traceback."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.test_server import Server

ADMIN = "admin-key-0123456789"
AS_ADMIN = {"Authorization": f"Bearer {ADMIN}"}
JSON = "application/json"
PROBLEM_JSON = "application/problem+json"
DEEP = 100_000

NOT_UTF8 = {
    "not UTF-8 in a string": b'{"query": "caf\xe9", "events": [], "name": "\xff\xfe"}',
    "not UTF-8 at all": b"\xff\xfe\xfd\x80",
    "an overlong UTF-8 slash": b'{"query": "\xc0\xaf"}',
    "an encoded surrogate": b'{"query": "\xed\xa0\x80"}',
    "an escaped lone surrogate": b'{"query": "\\ud800", "events": [], "name": "\\udfff"}',
}
TOO_DEEP = {
    "opening arrays only": b"[" * DEEP,
    "arrays, closed": b"[" * DEEP + b"]" * DEEP,
    "objects, closed": b'{"a":' * DEEP + b"1" + b"}" * DEEP,
    "arrays inside a field": b'{"query": "x", "events": ' + b"[" * DEEP + b"]" * DEEP + b"}",
    "a little too deep": b'{"events": ' + b"[" * 40 + b"]" * 40 + b"}",
}
BROKEN = {
    "truncated": b'{"query": "deploys on thurs',
    "truncated in an escape": b'{"query": "x\\u00',
    "empty": b"",
    "blank": b" \r\n\t ",
    "trailing garbage": b'{"query": "x"} {"query": "y"}',
}
NOT_AN_OBJECT_OF_FIELDS = {
    "an array": b"[]",
    "a string": b'"search me"',
    "a number": b"42",
    "null": b"null",
    "fields of the wrong type": b'{"query": 5, "events": {}, "name": [], "ids": "x"}',
}
NUMBERS = {
    "a huge exponent": b'{"query": "x", "limit": 1e999, "events": [1e999]}',
    "a huge integer": b'{"query": "x", "limit": 1' + b"0" * 5000 + b"}",
    "a huge negative exponent": b'{"query": "x", "limit": -1e-999}',
    "NaN": b'{"query": "x", "limit": NaN}',
    "infinities": b"[Infinity, -Infinity]",
}
ODD_CHARACTERS = {
    "a NUL character": b'{"query": "a\\u0000b", "name": "a\\u0000b"}',
    "a raw NUL byte": b'{"query": "a\x00b"}',
    "a raw control character": b'{"query": "a\nb"}',
    "a byte-order mark": b'\xef\xbb\xbf{"query": "x"}',
    "duplicate keys": b'{"query": "x", "query": 5}',
}
NOT_JSON = {
    "Latin-1 declared": (JSON + "; charset=latin-1", b'{"query": "caf\xe9"}'),
    "plain text": ("text/plain", b'{"query": "x"}'),
    "a form": ("application/x-www-form-urlencoded", b"query=x&limit=3"),
    "multipart": (
        "multipart/form-data; boundary=b",
        b'--b\r\nContent-Disposition: form-data; name="query"\r\n\r\nx\r\n--b--\r\n',
    ),
    "no content type": ("", b'{"query": "x"}'),
    "JSON Lines, broken": ("application/x-ndjson", b'{"kind": "header"\n\xff\xfe\n[[[[\n'),
}
"""Bodies declared as something else than JSON, with their Content-Type."""

BODIES: dict[str, tuple[str, bytes]] = {
    **{
        kind: (JSON, body)
        for bodies in (NOT_UTF8, TOO_DEEP, BROKEN, NOT_AN_OBJECT_OF_FIELDS, NUMBERS, ODD_CHARACTERS)
        for kind, body in bodies.items()
    },
    **NOT_JSON,
}
"""Each kind of body a caller may send that the service cannot take, with its Content-Type."""

PARAMETERS = {"path": "notes/probe.md", "confirm": "probe"}
"""Values of required query parameters, by name ("probe" otherwise)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(
        tmp_path_factory.mktemp("bad-requests") / "data", {"STRATA_API_KEYS": f"{ADMIN}=admin"}
    )
    yield running
    running.stop()


class Operation(NamedTuple):
    method: str
    url: str
    """The path of the operation with its path parameters and required query parameters."""
    takes_json: bool


def operations(document: dict[str, Any]) -> list[Operation]:
    """Every operation of the document."""
    found = []
    for template, item in document["paths"].items():
        for method, operation in item.items():
            if method not in ("get", "put", "post", "patch", "delete"):
                continue
            path = template
            query = {}
            for p in [*item.get("parameters", []), *operation.get("parameters", [])]:
                if p["in"] == "path":
                    path = path.replace("{" + p["name"] + "}", "probe")
                elif p["in"] == "query" and p.get("required"):
                    query[p["name"]] = PARAMETERS.get(p["name"], "probe")
            body = operation.get("requestBody", {}).get("content", {})
            found.append(
                Operation(method.upper(), str(httpx.URL(path, params=query)), JSON in body)
            )
    return found


def traceback_count(server: Server) -> int:
    return server.log.read_text(errors="replace").count("Traceback")


def test_no_body_of_any_kind_is_a_server_error_on_any_operation(server: Server) -> None:
    every = operations(httpx.get(f"{server.url}/schema/openapi.json").json())
    assert len(every) >= 25 and ("POST", "/v1/search", True) in every, every
    tracebacks = traceback_count(server)
    size = server.log.stat().st_size
    sent = 0
    failures = []
    with httpx.Client(base_url=server.url, timeout=60) as client:
        for operation in every:
            for kind, (content_type, body) in BODIES.items():
                for key in (AS_ADMIN, {}):
                    headers = {**key, "Content-Type": content_type} if content_type else key
                    answer = client.request(
                        operation.method, operation.url, content=body, headers=headers
                    )
                    sent += 1
                    status = answer.status_code
                    what = f"{operation.method} {operation.url} with {kind} "
                    what += f"({'admin' if key else 'no key'}): {status} {answer.text[:300]}"
                    if status >= 500:
                        failures.append(what)
                    elif status >= 400 and not answer.headers["content-type"].startswith(
                        PROBLEM_JSON
                    ):
                        failures.append(f"not problem details: {what}")
                    elif status < 400 and operation.takes_json:
                        failures.append(f"taken: {what}")
    assert not failures, "\n".join(failures[:40]) + f"\n({len(failures)} of {sent})"
    httpx.get(f"{server.url}/health", headers={"X-Request-ID": "walked"})
    logged(server, "[walked] GET /health 200")  # the lines of the requests before are written
    assert traceback_count(server) == tracebacks
    # One access line a request, not a traceback each: a few hundred bytes a request at most.
    assert server.log.stat().st_size - size < 400 * sent


def test_a_body_the_service_cannot_read_is_400_naming_why(server: Server) -> None:
    for kind, reason in (
        ("not UTF-8 in a string", "not UTF-8"),
        ("arrays, closed", "nested more than 32"),
        ("objects, closed", "nested more than 32"),
        ("arrays inside a field", "nested more than 32"),
        ("a little too deep", "nested more than 32"),
        ("truncated", "not valid JSON"),
        ("NaN", "not valid JSON"),
    ):
        content_type, body = BODIES[kind]
        for headers in (AS_ADMIN, {}):
            answer = httpx.post(
                f"{server.url}/v1/search",
                content=body,
                headers={**headers, "Content-Type": content_type},
            )
            assert answer.status_code == 400, (kind, answer.text)
            assert answer.headers["content-type"].startswith(PROBLEM_JSON)
            assert reason in answer.json()["detail"], (kind, answer.text)


def test_a_path_no_route_serves_is_logged_and_counted_as_unmatched(server: Server) -> None:
    def unmatched() -> float:
        scraped = httpx.get(f"{server.url}/metrics", headers=AS_ADMIN).text
        assert "no-such-route" not in scraped
        return sum(
            s.value
            for family in text_string_to_metric_families(scraped)
            for s in family.samples
            if s.name == "strata_http_requests_total" and s.labels["route"] == "unmatched"
        )

    before = unmatched()
    for n in range(3):
        answer = httpx.get(
            f"{server.url}/v1/no-such-route-{n}", headers={"X-Request-ID": f"lost-{n}"}
        )
        assert answer.status_code == 404
        assert answer.headers["content-type"].startswith(PROBLEM_JSON)
    eventually(lambda: unmatched() == before + 3)
    for n in range(3):
        logged(server, f"[lost-{n}] GET /v1/no-such-route-{n} 404")


def test_a_path_cannot_forge_a_line_of_the_log(server: Server) -> None:
    forged = "2026-01-01 00:00:00,000 INFO strata.access [x] GET /v1/admin/jobs 200 1.0ms"
    for n, (path, written) in enumerate(
        (
            ("/v1/no-such-route%0a" + forged.replace(" ", "%20"), "no-such-route\\x0a2026"),
            ("/v1/search%0d%0a" + forged.replace(" ", "%20"), "search\\x0d\\x0a2026"),
            ("/v1/entries/x%1b%5b2J%c2%85%e2%80%a8end", "entries/x\\x1b[2J\\x85\\u2028end"),
        )
    ):
        answer = httpx.get(f"{server.url}{path}", headers={"X-Request-ID": f"forger-{n}"})
        assert answer.status_code < 500
        logged(server, f"[forger-{n}] GET /v1/{written}")
    assert not any(line.startswith(forged) for line in server.log.read_text().split("\n"))


def eventually(done: Callable[[], bool], timeout: float = 20) -> None:
    """Wait for ``done``: a request is logged and counted once its answer has been sent."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.05)


def logged(server: Server, text: str) -> None:
    """Wait until one line of the server's log holds ``text``."""
    eventually(lambda: any(text in line for line in server.log.read_text().split("\n")))


def test_an_export_line_nested_past_the_bound_is_a_bad_line(server: Server) -> None:
    exported = httpx.get(f"{server.url}/v1/namespaces/default/export", headers=AS_ADMIN)
    assert exported.status_code == 200, exported.text
    header = exported.content.split(b"\n")[0]
    end = b'{"record": "end", "lines": 2}'
    for deep in (
        b"[" * DEEP + b"]" * DEEP,
        b'{"record": "entry", "x": ' + b"[" * DEEP + b"]" * DEEP + b"}",
    ):
        answer = httpx.post(
            f"{server.url}/v1/namespaces/probe/import",
            content=b"\n".join((header, deep, end, b"")),
            headers={**AS_ADMIN, "Content-Type": "application/x-ndjson"},
        )
        assert answer.status_code == 422, answer.text
        assert answer.headers["content-type"].startswith(PROBLEM_JSON)
        assert "line 2" in answer.text
