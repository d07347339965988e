"""The LangChain and LlamaIndex retrievers against the real server: documents and nodes
carry strata's metadata (a note's file and lines among it), namespace and filters apply,
and the async paths answer as the sync ones do."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import msgspec
import pytest
from llama_index.core.schema import TextNode

from service.remote import langchain, llamaindex
from service.remote.aio import AsyncStrataClient
from service.remote.client import StrataClient, StrataClientError
from tests.e2e.test_server import Server

ADMIN = "admin-key-0123456789"
ALICE = "alice-key-0123456789"
EVENTS = [
    {
        "id": "pref-1",
        "namespace": "alice",
        "tier": "A",
        "speaker": "Alice",
        "tags": ["diet"],
        "text": "I am allergic to peanuts, so never suggest satay.",
    },
    {
        "id": "run-1",
        "namespace": "alice",
        "tier": "E",
        "speaker": "ci",
        "text": "the peanut allergy check passed in 41s",
    },
    {"id": "bob-1", "namespace": "bob", "tier": "A", "text": "Bob has a peanut allergy too."},
]
CONTEXT = [f"Line {n}: the billing outage taught us about retries and timeouts." for n in range(40)]
ADR = "\n".join(
    ["# ADR 7", "", "## Context", "", *CONTEXT, "", "## Decision", "", "Services talk over gRPC."]
)
"""A note long enough to be split: the decision is a chunk of its own, at its own lines."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("retrievers")
    (root / "notes" / "adr").mkdir(parents=True)
    (root / "notes" / "adr" / "007.md").write_text(ADR)
    running = Server(
        root / "data",
        {
            "STRATA_API_KEYS": f"{ADMIN}=admin;{ALICE}=agent:alice",
            "STRATA_COLLECTION_ROOTS": str(root / "notes"),
        },
    )
    headers = {"Authorization": f"Bearer {ADMIN}"}
    try:
        written = httpx.post(
            f"{running.url}/v1/events", json={"events": EVENTS}, headers=headers, timeout=60
        )
        assert written.status_code == 201, written.text
        collection = {"name": "notes", "path": str(root / "notes"), "namespace": "alice"}
        added = httpx.post(
            f"{running.url}/v1/collections", json=collection, headers=headers, timeout=60
        )
        assert added.status_code == 201, added.text
        yield running
    finally:
        running.stop()


@pytest.mark.slow
def test_langchain_documents_carry_strata_metadata(server: Server) -> None:
    retriever = langchain.StrataRetriever(url=server.url, api_key=ALICE, limit=3)
    docs = retriever.invoke("what is Alice allergic to?")
    first = docs[0]
    assert first.id == "pref-1"
    assert first.page_content == "I am allergic to peanuts, so never suggest satay."
    assert first.metadata["id"] == "pref-1"
    assert first.metadata["namespace"] == "alice"
    assert first.metadata["tier"] == "A"
    assert first.metadata["speaker"] == "Alice"
    assert first.metadata["tags"] == ["diet"]
    assert 0 < first.metadata["score"] <= 1
    assert [d.metadata["score"] for d in docs] == sorted(
        (d.metadata["score"] for d in docs), reverse=True
    )
    assert "bob-1" not in {d.id for d in docs}, "the key's namespace only"

    again = asyncio.run(retriever.ainvoke("what is Alice allergic to?"))
    assert [(d.id, d.metadata) for d in again] == [(d.id, d.metadata) for d in docs]


@pytest.mark.slow
def test_a_note_names_its_file_and_the_lines_that_matched(server: Server) -> None:
    retriever = langchain.StrataRetriever(url=server.url, api_key=ALICE, limit=5)
    note = next(
        d for d in retriever.invoke("which protocol do services talk over?") if "file" in d.metadata
    )
    meta = note.metadata
    assert meta["source"] == meta["file"] == "notes/adr/007.md"
    assert meta["title"] == "ADR 7"
    assert meta["lines"] == f"{meta['start_line']}-{meta['end_line']}"
    assert meta["start_line"] > len(CONTEXT), "the decision's chunk, not the file's start"
    with StrataClient(server.url, api_key=ALICE) as client:
        span = meta["end_line"] - meta["start_line"] + 1
        lines = client.get_document(meta["source"], meta["start_line"], span).text
    assert "gRPC" in lines, "the lines hold what matched"


@pytest.mark.slow
def test_langchain_namespace_and_filters_apply(server: Server) -> None:
    logs = langchain.StrataRetriever(
        url=server.url, api_key=ALICE, filters={"tiers": ["E"], "speaker": "ci"}
    )
    assert [d.id for d in logs.invoke("peanut allergy")] == ["run-1"]
    bob = langchain.StrataRetriever(url=server.url, api_key=ADMIN, namespace="bob")
    assert [d.id for d in asyncio.run(bob.ainvoke("peanut allergy"))] == ["bob-1"]

    with pytest.raises(ValueError, match="unknown search filters \\['tier'\\]"):
        langchain.StrataRetriever(url=server.url, filters={"tier": ["A"]})
    elsewhere = langchain.StrataRetriever(url=server.url, api_key=ALICE, namespace="bob")
    with pytest.raises(StrataClientError) as refused:
        elsewhere.invoke("peanut allergy")
    assert refused.value.status == 403


@pytest.mark.slow
def test_llamaindex_nodes_carry_strata_metadata_and_scores(server: Server) -> None:
    retriever = llamaindex.StrataRetriever(server.url, api_key=ALICE, limit=3)
    found = retriever.retrieve("what is Alice allergic to?")
    first = found[0]
    assert isinstance(first.node, TextNode)
    assert first.node.node_id == "pref-1"
    assert first.node.text == "I am allergic to peanuts, so never suggest satay."
    assert first.score == first.node.metadata["score"]
    assert first.node.metadata["tier"] == "A"
    assert first.node.metadata["namespace"] == "alice"

    again = asyncio.run(retriever.aretrieve("what is Alice allergic to?"))
    assert [(n.node.node_id, n.score) for n in again] == [(n.node.node_id, n.score) for n in found]

    note = llamaindex.StrataRetriever(server.url, api_key=ALICE, filters={"tiers": ["A"]})
    files = {n.node.metadata.get("source") for n in note.retrieve("gRPC services")}
    assert "notes/adr/007.md" in files
    logs = llamaindex.StrataRetriever(server.url, api_key=ALICE, filters={"tiers": ["E"]})
    assert [n.node.node_id for n in asyncio.run(logs.aretrieve("peanut allergy"))] == ["run-1"]
    bob = llamaindex.StrataRetriever(server.url, api_key=ADMIN, namespace="bob", limit=1)
    assert [n.node.node_id for n in bob.retrieve("peanut allergy")] == ["bob-1"]
    with pytest.raises(ValueError, match="unknown search filters"):
        llamaindex.StrataRetriever(server.url, filters={"namespace": "bob"})


@pytest.mark.slow
def test_the_async_client_writes_searches_answers_and_reads(server: Server) -> None:
    async def session() -> None:
        async with AsyncStrataClient(server.url, api_key=ALICE) as strata:
            entry_id = await strata.remember("Deploys go out on Thursdays.", tier="C", tags=None)
            found = await strata.search("when do deploys go out?", limit=3)
            assert found.results[0].id == entry_id
            answer = await strata.retrieve("When do deploys go out?", top_n=2)
            assert answer.entries[0].id == entry_id
            rated = await strata.feedback(answer.interaction_id, "up")
            assert rated.rating == "up" and rated.reference_id is None
            named = await strata.feedback(answer.interaction_id, "up", answers=[entry_id])
            assert named.reference_id
            recorded = await strata.record_reference("Who won the match?", nothing=True)
            assert recorded.nothing and recorded.source == "agent"
            assert (await strata.get_entry(entry_id, namespace="alice")).tier == "C"
            assert (await strata.delete_entry(entry_id)).deleted
            with pytest.raises(StrataClientError) as missing:
                await strata.get_entry(entry_id)
            assert missing.value.status == 404
            assert (await strata.health()).status == "ok"

    asyncio.run(session())


@pytest.mark.slow
def test_the_client_asks_for_the_fields_it_reads_and_a_retriever_for_whole_hits(
    server: Server,
) -> None:
    with StrataClient(server.url, api_key=ALICE) as client:
        whole = client.search("peanut allergy").results
        bare = client.search("peanut allergy", fields=["snippet"]).results
    assert [(h.id, h.score, h.snippet) for h in bare] == [(h.id, h.score, h.snippet) for h in whole]
    assert all(h.text is msgspec.UNSET and h.tier is msgspec.UNSET for h in bare)
    with pytest.raises(ValueError, match="unknown search filters \\['fields'\\]"):
        langchain.StrataRetriever(url=server.url, filters={"fields": []})
