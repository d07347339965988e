"""The MCP tools, driven by the MCP SDK's own client: over streamable HTTP at /mcp of the
real server process, and over stdio through `strata mcp` talking to that server."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult

from tests.e2e.test_server import Server

ROOT = Path(__file__).parents[2]
TOOLS = {
    "search",
    "retrieve",
    "context",
    "get",
    "multi_get",
    "remember",
    "record_reference",
    "status",
}
ADMIN = "admin-key-0123456789"
ALICE = "alice-key-0123456789"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("open") / "data")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    keys = f"{ADMIN}=admin;{ALICE}=agent:alice"
    running = Server(tmp_path_factory.mktemp("keyed") / "data", {"STRATA_API_KEYS": keys})
    yield running
    running.stop()


@asynccontextmanager
async def over_http(url: str, key: str | None = None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured result, checked to be the same JSON as its text."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    content: dict[str, Any] | None = result.structured_content
    assert content is not None
    assert json.loads(_text(result)) == content
    return content


def _text(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def test_http_tools_remember_search_read_and_report(server: Server, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    lines = ["# Deploys", "", *(f"line {n}" for n in range(3, 40)), "Deploys go out on Thursdays."]
    (notes / "deploys.md").write_text("\n".join(lines))
    (notes / "big.md").write_text("# Big\n" + "x" * 5000)
    added = httpx.post(
        f"{server.url}/v1/collections", json={"name": "notes", "path": str(notes)}, timeout=60
    )
    assert added.status_code == 201, added.text

    async def scenario() -> None:
        async with over_http(server.url) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS

            text = "The staging database password rotates every 90 days."
            written = await call(client, "remember", text=text, speaker="ops", tags=["security"])
            assert written["tier"] == "A" and written["embedded"]

            found = await call(client, "search", query="how often does the password rotate?")
            assert found["results"][0]["id"] == written["id"]
            assert found["results"][0]["text"] == text
            assert found["mode"] == "hybrid"
            keywords = await call(client, "search", query="password", tiers=["A"], mode="bm25")
            assert [hit["id"] for hit in keywords["results"]] == [written["id"]]
            retrieved = await call(client, "retrieve", question="password rotation", top_n=1)
            assert [hit["id"] for hit in retrieved["entries"]] == [written["id"]]
            assert retrieved["strong_match"] is (
                retrieved["answer_confidence"] >= retrieved["threshold"]
            )

            entry = await call(client, "get", id_or_path=written["id"])
            assert entry["speaker"] == "ops" and entry["tags"] == ["security"]

            hit = (await call(client, "search", query="when do deploys go out?"))["results"][0]
            assert hit["file"] == "notes/deploys.md"
            page = await call(client, "get", id_or_path="notes/deploys.md", from_line=40, lines=1)
            assert page["first_line"] == 40 and page["text"] == "40| Deploys go out on Thursdays."
            many = await call(client, "multi_get", pattern="notes/*.md", max_bytes=1000)
            assert [d["path"] for d in many["documents"]] == ["notes/deploys.md"]
            assert [s["path"] for s in many["skipped"]] == ["notes/big.md"]

            status = await call(client, "status")
            assert status["health"]["model"] == "all-MiniLM-L6-v2"
            assert status["health"]["stores"]["ledger"]["A"] >= 1
            assert status["stats"]["totals"]["entries"] >= 2

            missing = await client.call_tool("get", {"id_or_path": "no-such-entry"})
            assert missing.is_error and "404" in _text(missing)
            blank = await client.call_tool("search", {"query": "   "})
            assert blank.is_error and "must not be blank" in _text(blank)

    anyio.run(scenario)


def test_http_without_keys_answers_loopback_names_only(server: Server) -> None:
    """An open service is reachable by web pages through DNS rebinding; Host says so, and
    /mcp refuses it as every route does."""
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    accept = {"Accept": "application/json, text/event-stream"}
    for host, status in [(f"localhost:{server.port}", 200), (f"evil.example:{server.port}", 403)]:
        headers = {**accept, "Host": host, "MCP-Protocol-Version": "2025-11-25"}
        response = httpx.post(f"{server.url}/mcp", json=listing, headers=headers)
        assert response.status_code == status, (host, response.text)
    foreign = {**accept, "Origin": "https://evil.example", "MCP-Protocol-Version": "2025-11-25"}
    refused = httpx.post(f"{server.url}/mcp", json=listing, headers=foreign)
    assert refused.status_code == 403
    assert refused.headers["content-type"].startswith("application/problem+json")


def test_http_needs_a_key_and_keeps_to_its_namespaces(keyed: Server) -> None:
    refused = httpx.post(
        f"{keyed.url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert refused.status_code == 401
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert refused.headers["www-authenticate"] == "Bearer"
    wrong = httpx.post(f"{keyed.url}/mcp", json={}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401

    async def scenario() -> None:
        with pytest.raises(ExceptionGroup) as refused_to_sdk:
            async with over_http(keyed.url) as client:
                await client.list_tools()
        assert refused_to_sdk.group_contains(MCPError)

        async with over_http(keyed.url, ALICE) as client:
            written = await call(client, "remember", text="Alice prefers tea to coffee.")
            found = await call(client, "search", query="tea or coffee?")
            assert found["results"][0]["id"] == written["id"]
            assert found["results"][0]["namespace"] == "alice"
            other = await client.call_tool("search", {"query": "tea", "namespace": "bob"})
            assert other.is_error and "403" in _text(other)

        async with over_http(keyed.url, ADMIN) as client:
            empty = await call(client, "search", query="tea or coffee?")
            assert empty["results"] == [], "the admin key searches 'default', not alice's"

    anyio.run(scenario)


def test_http_offers_no_event_stream_so_a_get_holds_no_place_in_flight(keyed: Server) -> None:
    """Stateless /mcp answers GET at once with 405: more GETs than the key has places in
    flight (8 for an agent) leave its REST calls served."""
    stream = {"Accept": "text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    as_alice = {"Authorization": f"Bearer {ALICE}"}
    with httpx.Client(base_url=keyed.url, timeout=10) as http:
        for _ in range(9):
            refused = http.get("/mcp", headers={**stream, **as_alice})
            assert refused.status_code == 405, refused.text
            assert refused.headers["allow"] == "POST"
            assert refused.headers["content-type"].startswith("application/problem+json")
            assert refused.json()["status"] == 405
        assert http.delete("/mcp", headers=as_alice).status_code == 405
        assert http.get("/mcp", headers=stream).status_code == 401  # a key first, as ever
        assert http.get("/v1/stats", headers=as_alice).status_code == 200


def test_stdio_server_talks_to_the_service(server: Server) -> None:
    event = {"id": "adr-9", "tier": "A", "text": "ADR 9: queues are drained before deploys."}
    assert httpx.post(f"{server.url}/v1/events", json={"events": [event]}).status_code == 201
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "service", "mcp"],
        env={"STRATA_URL": server.url, "PYTHONPATH": str(ROOT), **_passthrough()},
        cwd=ROOT,
    )

    async def scenario() -> None:
        async with Client(params) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            found = await call(client, "search", query="what happens to queues before a deploy?")
            assert found["results"][0]["id"] == "adr-9"
            entry = await call(client, "get", id_or_path="adr-9")
            assert entry["text"] == event["text"]

    anyio.run(scenario)


def test_stdio_server_reports_an_unreachable_service() -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "service", "--url", "http://127.0.0.1:9", "mcp"],
        env={"PYTHONPATH": str(ROOT), **_passthrough()},
        cwd=ROOT,
    )

    async def scenario() -> None:
        async with Client(params) as client:
            result = await client.call_tool("status", {})
            assert result.is_error and "cannot reach the strata service" in _text(result)

    anyio.run(scenario)


def _passthrough() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith(("HF_", "TOKENIZERS_"))}
