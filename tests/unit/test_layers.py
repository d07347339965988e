"""Which parts of the service may import which: read from the code's own imports."""

from __future__ import annotations

import ast
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.application import Services

SERVICE = Path(__file__).resolve().parents[2] / "service"


def crossing(folder: str, *packages: str) -> list[tuple[str, str]]:
    """(file, module) for every import of one of ``packages`` (or a module of theirs) by a
    file under ``service/<folder>``."""
    return [
        (file, module)
        for file, module in imported(folder)
        if any(module == p or module.startswith(f"{p}.") for p in packages)
    ]


def imported(folder: str) -> Iterator[tuple[str, str]]:
    """(file, module) for every module imported by a file under ``service/<folder>``."""
    for path in sorted((SERVICE / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                yield str(path.relative_to(SERVICE.parent)), node.module
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    yield str(path.relative_to(SERVICE.parent)), alias.name


@pytest.mark.parametrize("front_end", ["ui", "mcp"])
def test_a_front_end_takes_the_http_edge_from_no_other_front_end(front_end: str) -> None:
    """The console and MCP share the REST API's dependencies, limits and problems through
    ``service/edge``, which none of them owns."""
    assert crossing(front_end, "service.api") == []


def test_the_http_edge_imports_no_front_end() -> None:
    assert crossing("edge", "service.api", "service.ui", "service.mcp", "service.cli") == []


@pytest.mark.parametrize("layer", ["application", "present"])
def test_the_use_cases_and_their_presenters_know_no_schedule(layer: str) -> None:
    """Memory's upkeep is a use case; ``service/jobs`` holds its schedule and runs it."""
    assert crossing(layer, "service.jobs") == []


def test_what_a_front_end_is_given_holds_no_store_engine_or_part_of_the_memory() -> None:
    """A front end is given ``Services``: use cases, keys, limits, settings, telemetry. The
    stores, the memory and the jobs stay with the runtime that bootstrap and lifespan own."""
    behind = ("service.domain.ports", "service.domain.memory", "service.stores", "service.jobs")
    given = typing.get_type_hints(Services)
    reachable = {
        name: f"{kind.__module__}.{kind.__qualname__}"
        for name, kind in given.items()
        if isinstance(kind, type)
        and (kind.__module__.startswith(behind) or kind.__qualname__ == "Stores")
    }
    assert reachable == {}
    assert set(given) >= {"events", "search", "answers", "keys", "limits", "sessions"}
