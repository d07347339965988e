"""What the Chroma vector store adds to the vector store's contract
(tests/contracts/test_vector_store.py): its collections, found again on reopening, embedded
and on a server."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from service.domain.entries import Chunk, StoredEntry, Tier
from service.stores.chroma import ChromaVectorStore
from tests.fakes import make_entry, make_filters


@pytest.fixture
def store(chroma_url: str, chroma_store: Callable[[str], ChromaVectorStore]) -> ChromaVectorStore:
    return chroma_store(chroma_url)


def stored(id: str, namespace: str, tier: Tier = "A") -> StoredEntry:
    e = make_entry(id, "text", tier, namespace)
    return StoredEntry(e, (Chunk(e.key, 0, "text", (1.0, 0.0)),))


def test_each_namespace_and_tier_has_a_collection_found_again_on_reopening(
    store: ChromaVectorStore,
) -> None:
    store.upsert([stored("a", "one"), stored("c", "one", "C"), stored("b", "two")])
    reopened = ChromaVectorStore(store.client, store.prefix)
    assert (reopened.count("A"), reopened.count("C")) == (2, 1)
    found = reopened.search("A", (1.0, 0.0), make_filters("two"), 10)
    assert [h.key for h in found] == ["two:b"]
    reopened.delete(["one:a", "one:c"])
    assert reopened.entry_keys() == {"two:b"}


def test_collections_of_the_one_per_tier_layout_are_dropped_at_open(
    store: ChromaVectorStore,
) -> None:
    """The ledger keeps every vector: a rebuild refills the per-namespace collections."""
    client, prefix = store.client, store.prefix
    legacy = client.get_or_create_collection(f"{prefix}_A", embedding_function=None)
    legacy.upsert(ids=["ns:old#0"], embeddings=[[1.0, 0.0]], metadatas=[{"key": "ns:old"}])
    reopened = ChromaVectorStore(client, prefix)
    assert f"{prefix}_A" not in {c.name for c in client.list_collections()}
    assert reopened.entry_keys() == set()


def test_replicas_sharing_a_server_find_the_collections_the_others_made(
    store: ChromaVectorStore,
) -> None:
    one = ChromaVectorStore(store.client, store.prefix, shared=True)
    two = ChromaVectorStore(store.client, store.prefix, shared=True)
    one.upsert([stored("a", "new"), stored("c", "new", "C")])
    assert [h.key for h in two.search("A", (1.0, 0.0), make_filters("new"), 10)] == ["new:a"]
    assert (two.count("A"), two.count("C")) == (1, 1)
    two.delete(["new:a"])
    assert one.search("A", (1.0, 0.0), make_filters("new"), 10) == []
    assert two.search("A", (1.0, 0.0), make_filters("none here"), 10) == []
