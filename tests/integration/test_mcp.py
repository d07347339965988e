"""The MCP tools over both gateways, in process: the domain called directly (what /mcp
uses) and the REST API through the client (what `strata mcp` uses) must answer alike."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from litestar.testing import transport as litestar_transport
from mcp import Client

from service.app import create_app
from service.bootstrap import Runtime
from service.mcp import Gateway, LocalGateway, RestGateway, build_server
from service.present.times import format_time
from service.remote.client import StrataClient
from service.settings import Settings
from tests.fakes import FakeClock
from tests.http import LOCAL
from tests.integration.test_api import OpenStores

ADMIN = "admin-key-0123456789"
ALICE = "alice-key-0123456789"


@pytest.fixture
def resources(tmp_path: Path, open_stores: OpenStores) -> Runtime:
    keys = f"{ADMIN}=admin;{ALICE}=agent:alice"
    settings = Settings().replace(
        data_dir=tmp_path / "data", api_keys=keys, jobs="off", collection_roots=str(tmp_path)
    )
    return open_stores(settings)


@pytest.fixture
def rest(resources: Runtime) -> Iterator[TestClient[Litestar]]:
    with TestClient(create_app(services=resources.services), base_url=LOCAL) as client:
        yield client


def gateways(resources: Runtime, rest: TestClient[Litestar], key: str) -> list[Gateway]:
    principal = resources.services.keys.authenticate(f"Bearer {key}")
    client = StrataClient(
        "http://testserver.local",
        api_key=key,
        # Litestar's test transport has httpx's handle_request but no BaseTransport base.
        transport=litestar_transport.TestClientTransport(rest),  # type: ignore[arg-type]
    )
    return [LocalGateway(resources.services, principal), RestGateway(client)]


def call_both(gateways: list[Gateway], tool: str, **arguments: Any) -> list[dict[str, Any]]:
    """The tool's result through each gateway: structured content, or the error text."""

    async def call(gateway: Gateway) -> dict[str, Any]:
        async with Client(build_server(lambda _: gateway)) as client:
            result = await client.call_tool(tool, arguments)
        if result.is_error:
            return {"error": "".join(getattr(c, "text", "") for c in result.content)}
        content: dict[str, Any] | None = result.structured_content
        assert content is not None
        # What differs between two identical calls: timing, and a fresh interaction id.
        content.pop("took_ms", None)
        content.pop("interaction_id", None)
        return content

    return [anyio.run(call, gateway) for gateway in gateways]


def test_both_gateways_answer_alike(
    resources: Runtime, rest: TestClient[Litestar], tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "billing.md").write_text("# Billing\n\nInvoices are sent on the 1st.\n")
    added = rest.post(
        "/v1/collections",
        json={"name": "notes", "path": str(notes), "namespace": "alice"},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    assert added.status_code == 201, added.text
    alice = gateways(resources, rest, ALICE)

    local, remote = alice
    (peanuts,) = call_both([local], "remember", text="Alice is allergic to peanuts.")
    (tea,) = call_both([remote], "remember", text="Alice drinks tea.", tier="C", tags=["diet"])
    assert peanuts["tier"] == "A" and tea["tier"] == "C" and peanuts["embedded"] and tea["embedded"]

    calls: list[tuple[str, dict[str, Any]]] = [
        ("search", {"query": "what is alice allergic to?"}),
        ("search", {"query": "tea", "tiers": ["C"], "mode": "bm25"}),
        ("retrieve", {"question": "when are invoices sent?", "top_n": 2}),
        ("context", {"question": "what is alice allergic to?", "max_tokens": 64}),
        ("get", {"id_or_path": peanuts["id"]}),
        ("get", {"id_or_path": tea["id"], "namespace": "alice"}),
        ("get", {"id_or_path": "notes/billing.md", "from_line": 3}),
        ("multi_get", {"pattern": "notes/*.md"}),
        ("status", {}),
    ]
    for tool, arguments in calls:
        here, there = call_both(alice, tool, **arguments)
        assert "error" not in here and here == there, (tool, here, there)
    recorded = call_both(
        alice, "record_reference", question="What is Alice allergic to?", answers=[peanuts["id"]]
    )
    assert [(y["answers"], y["source"]) for y in recorded] == [([peanuts["id"]], "agent")] * 2
    listed = rest.get("/v1/references", headers={"Authorization": f"Bearer {ALICE}"}).json()
    assert [x["id"] for x in listed["references"]] == [y["id"] for y in recorded]
    refused: list[tuple[str, dict[str, Any]]] = [
        ("record_reference", {"question": "Who won?"}),
        ("record_reference", {"question": "Who won?", "nothing": True, "namespace": "bob"}),
        ("get", {"id_or_path": "nope"}),
        ("search", {"query": "tea", "namespace": "bob"}),
        ("get", {"id_or_path": "notes/../../secret.md"}),
        ("multi_get", {"pattern": "notes/missing.md, elsewhere/x.md"}),
    ]
    for tool, arguments in refused:
        here, there = call_both(alice, tool, **arguments)
        assert "error" in here and here == there, (tool, here, there)
    (found,) = call_both([local], "search", query="what is alice allergic to?")
    assert found["results"][0]["id"] == peanuts["id"]
    assert found["results"][0]["namespace"] == "alice"
    (missing,) = call_both([local], "get", id_or_path="nope")
    assert missing["error"].endswith("404 Not found: no entry 'nope' in namespace 'alice'")
    (elsewhere,) = call_both([remote], "search", query="tea", namespace="bob")
    assert (
        "403 Forbidden: namespace: this API key may not use namespace 'bob'" in elsewhere["error"]
    )


def test_search_and_retrieve_say_when_nothing_is_relevant(
    resources: Runtime, rest: TestClient[Litestar]
) -> None:
    alice = gateways(resources, rest, ALICE)
    call_both(alice[:1], "remember", text="Alice is allergic to peanuts.")
    question = "Who won the football world cup in 1998?"
    for here in call_both(alice, "search", query=question):
        assert (here["results"], here["dropped"]) == ([], 1)
        assert here["note"] == (
            "nothing relevant in memory (1 hit below the relevance floor; min_score 0 shows them)"
        )
    for here in call_both(alice, "retrieve", question=question):
        assert here["entries"] == [] and here["strong_match"] is False
        assert here["note"] == "nothing relevant in memory"
    for here in call_both(alice, "context", question=question):
        assert here["entries"] == [] and here["nothing_relevant"] is True
        assert here["context"] == "### Memory\nNothing relevant in memory."
    for here in call_both(alice, "search", query=question, min_score=0):
        assert len(here["results"]) == 1 and "note" not in here


def test_remember_supersedes_and_search_answers_as_of(
    resources: Runtime, rest: TestClient[Litestar], clock: FakeClock
) -> None:
    alice = gateways(resources, rest, ALICE)
    local, remote = alice
    (first,) = call_both([local], "remember", text="Billing runs on SQLite.", speaker="alice")
    (again,) = call_both([remote], "remember", text="billing runs on  SQLite.", speaker="alice")
    assert again["id"] == first["id"] and again["duplicate_of"] == first["id"]
    clock.advance(60)
    moment = format_time(clock.now)
    clock.advance(60)

    (close,) = call_both(
        [local], "remember", text="Billing runs on PostgreSQL now.", speaker="alice"
    )
    assert [s["id"] for s in close["similar"]] == [first["id"]]
    (revised,) = call_both(
        [remote], "remember", text="Billing runs on PostgreSQL.", supersedes=[first["id"]]
    )
    assert revised["supersedes"] == [first["id"]]

    for here in call_both(alice, "search", query="what does billing run on?"):
        assert first["id"] not in [r["id"] for r in here["results"]]
    for here in call_both(alice, "search", query="billing sqlite", include_superseded=True):
        shown = {r["id"]: r.get("superseded_by") for r in here["results"]}
        assert shown[first["id"]] == revised["id"]
    for here in call_both(alice, "search", query="what does billing run on?", as_of=moment):
        assert [r["id"] for r in here["results"]] == [first["id"]]
    (unknown,) = call_both([local], "remember", text="x", supersedes=["ghost"])
    assert "events[0].supersedes[0]" in unknown["error"]


def test_a_decision_remembered_as_one_answers_what_was_decided(
    resources: Runtime, rest: TestClient[Litestar]
) -> None:
    alice = gateways(resources, rest, ALICE)
    local, remote = alice
    call_both([local], "remember", text="WARN billing: cache check took 812ms", tier="E")
    (decided,) = call_both(
        [remote],
        "remember",
        text="Decision on the billing cache: we use Redis, since the on-call team knows it.",
        type="decision",
    )
    for here in call_both(alice, "search", query="what did we decide about the billing cache?"):
        assert here["results"][0]["id"] == decided["id"]
    headers = {"Authorization": f"Bearer {ALICE}"}
    shown = rest.get(f"/v1/entries/{decided['id']}", headers=headers).json()
    assert shown["type"] == "decision"
