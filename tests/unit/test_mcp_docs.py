"""The MCP page names every argument of every tool, as the tools declare them."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from service.mcp.tools import build_server

PAGE = Path(__file__).resolve().parents[2] / "docs/guide/mcp.md"
ROW = re.compile(r"^\| `(?P<tool>\w+)` \| (?P<arguments>[^|]*) \|", re.MULTILINE)


def documented() -> dict[str, set[str]]:
    """Each tool's row of the page's table: the arguments it names."""
    return {
        row["tool"]: set(re.findall(r"`(\w+)`", row["arguments"]))
        for row in ROW.finditer(PAGE.read_text())
    }


def test_the_mcp_page_names_each_tools_arguments() -> None:
    tools = asyncio.run(build_server(lambda _: None).list_tools())  # type: ignore[arg-type,return-value]
    rows = documented()
    assert set(rows) == {tool.name for tool in tools}
    for tool in tools:
        arguments = set(tool.input_schema.get("properties", {}))
        assert rows[tool.name] == arguments, tool.name
        required = tool.input_schema.get("required", [])
        first = re.search(rf"^\| `{tool.name}` \| `(\w+)`", PAGE.read_text(), re.MULTILINE)
        assert required == ([first.group(1)] if first else []), tool.name
