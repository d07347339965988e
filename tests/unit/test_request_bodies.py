"""Reading a request body (``service/edge/bodies.py``) and writing a log line of a caller's
text (``service/telemetry/logs.py``): pure logic, on its own."""

from __future__ import annotations

import json
import logging

import pytest

from service.edge.bodies import MAX_DEPTH, decode
from service.errors import MalformedRequest
from service.telemetry.logs import JsonFormatter, TextFormatter, printable


def nested(depth: int) -> bytes:
    return b'{"a":' * (depth - 1) + b"[1.0]" + b"}" * (depth - 1)


def test_a_body_as_deep_as_the_bound_is_read_with_integral_numbers_as_integers() -> None:
    value = decode(nested(MAX_DEPTH))
    for _ in range(MAX_DEPTH - 1):
        value = value["a"]
    assert value == [1] and isinstance(value[0], int)
    assert decode(b'{"n": 2.5, "m": [3.0, 1e300]}') == {"n": 2.5, "m": [3, 1e300]}


@pytest.mark.parametrize(
    "body",
    [
        nested(MAX_DEPTH + 1),
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    ],
)
def test_a_body_deeper_than_the_bound_is_malformed_not_a_recursion_error(body: bytes) -> None:
    with pytest.raises(MalformedRequest, match=f"nested more than {MAX_DEPTH}"):
        decode(body)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b'{"q": "caf\xe9"}', "not UTF-8 text: byte 10"),
        (b"\xff", "not UTF-8 text: byte 0"),  # however far the decoder read
        (b'{"q": "x', "not valid JSON"),
        (b"[NaN]", "not valid JSON"),
        (b"[1e999]", "not valid JSON"),
    ],
)
def test_a_body_that_is_not_utf8_json_is_malformed_saying_why(body: bytes, reason: str) -> None:
    with pytest.raises(MalformedRequest, match=reason) as raised:
        decode(body)
    assert raised.value.status == 400


def record(message: str) -> logging.LogRecord:
    made = logging.LogRecord(
        "strata.access", logging.INFO, __file__, 1, "GET %s 404", (message,), None
    )
    made.request_id = "-"
    return made


def test_a_callers_control_characters_are_escaped_in_a_text_line() -> None:
    line = TextFormatter().format(record("/x\nforged\r\x1b[2J\x85\u2028é"))
    assert "\n" not in line and "\r" not in line and "\x1b" not in line
    assert line.endswith("GET /x\\x0aforged\\x0d\\x1b[2J\\x85\\u2028é 404")


def test_a_callers_control_characters_are_escaped_in_a_json_line() -> None:
    line = JsonFormatter().format(record("/x\nforged\x85\u2028"))
    assert "\n" not in line and "\x85" not in line and "\u2028" not in line
    assert json.loads(line)["message"] == "GET /x\\x0aforged\\x85\\u2028 404"


def test_printable_text_is_left_as_it_is() -> None:
    text = "POST /v1/search 200 3.1ms café 日本 \\x0a"
    assert printable(text) == text
