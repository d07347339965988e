"""The JSON examples of the README and the docs, each checked as what it shows: an MCP
client's configuration is read as the CLI and the client read it, a problem, an answer or a
request is decoded as its wire type, and the problem the concepts page shows is the one the service
answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from schemas import wire
from service.cli.parser import parser
from service.remote.client import connection
from tests.readme import ROOT, fenced_blocks

PAGES = ("README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md")))


def json_examples() -> list[tuple[str, int, Any]]:
    return [
        (page, block.line, json.loads(block.text))
        for page in PAGES
        if not page.startswith("docs/benchmarks")
        for block in fenced_blocks((ROOT / page).read_text())
        if block.language == "json"
    ]


EXAMPLES = json_examples()


def kind(example: Any) -> str:
    if "mcpServers" in example:
        return "mcp"
    if {"type", "title", "status"} <= set(example):
        return "problem"
    if {"results", "mode"} <= set(example):
        return "search"
    if {"interaction_id", "rating"} <= set(example):
        return "feedback"
    if "question" in example and {"answers", "nothing"} & set(example):
        return "reference"
    return "unknown"


SHAPES: dict[str, type[msgspec.Struct]] = {
    "problem": wire.Problem,
    "search": wire.SearchResponse,
    "feedback": wire.FeedbackRequest,
    "reference": wire.ReferenceRequest,
}


def test_every_json_example_is_of_a_kind_these_tests_check() -> None:
    assert EXAMPLES, "the docs show JSON"
    assert [(page, line) for page, line, ex in EXAMPLES if kind(ex) == "unknown"] == []


@pytest.mark.parametrize(("page", "line", "example"), [e for e in EXAMPLES if kind(e[2]) == "mcp"])
def test_an_mcp_configuration_starts_strata_mcp_on_the_service_it_names(
    page: str, line: int, example: dict[str, Any]
) -> None:
    server = example["mcpServers"]["strata"]
    assert Path(server["command"]).parts[-3:] == (".venv", "bin", "strata")
    assert parser().parse_args(server["args"]).command == "mcp"
    url, key = connection(environ=server["env"])
    assert (url, key) == (server["env"]["STRATA_URL"], server["env"]["STRATA_API_KEY"])


@pytest.mark.parametrize(("page", "line", "example"), [e for e in EXAMPLES if kind(e[2]) != "mcp"])
def test_a_problem_or_an_answer_shown_is_one_of_its_wire_type(
    page: str, line: int, example: dict[str, Any]
) -> None:
    shape = SHAPES[kind(example)]
    decoded = msgspec.to_builtins(msgspec.convert(example, shape))  # fails on a wrong field
    assert {name: decoded.get(name) for name in example} == example


def test_the_problem_the_concepts_page_shows_is_the_one_answered(
    client: TestClient[Litestar],
) -> None:
    shown = next(ex for page, _, ex in EXAMPLES if page == "docs/guide/concepts.md")
    event = {"tier": "A", "text": " ", "ttl_days": 3}
    answered = client.post("/v1/events", json={"events": [event]})
    assert answered.status_code == shown["status"]
    assert {k: v for k, v in answered.json().items() if k != "request_id"} == shown
