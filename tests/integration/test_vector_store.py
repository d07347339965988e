"""The Chroma vector store, embedded and as a server, against the real model."""

from __future__ import annotations

import time

from service.domain.memory import Memory
from service.domain.models import Entry, Filters
from service.stores.chroma import ChromaVectorStore
from tests.settings import CHUNKING

NOW = time.time()


def stored(embedder, *entries: Entry):
    """Chunk and embed entries the way the write path does."""
    return Memory(None, None, None, embedder, CHUNKING).prepare(entries)


def entry(id: str, text: str, tier: str = "A", **fields) -> Entry:
    return Entry(
        id=id,
        namespace=fields.pop("namespace", "ns"),
        tier=tier,
        text=text,
        timestamp=fields.pop("timestamp", NOW),
        **fields,
    )


def filters(**changes) -> Filters:
    base = {"namespace": "ns", "tiers": ("A", "C", "E"), "now": NOW}
    return Filters(**{**base, **changes})


def search(store: ChromaVectorStore, embedder, text: str, tier="A", **changes):
    vector = embedder.embed([text])[0]
    return [h.key for h in store.search(tier, vector, filters(**changes), 10)]


def test_finds_by_meaning_one_hit_per_entry(vector_store, embedder) -> None:
    long_text = " ".join(["The team picked PostgreSQL as the primary database."] * 60)
    vector_store.upsert(
        stored(
            embedder,
            entry("db", long_text),
            entry("ui", "The frontend uses React with a design system."),
        )
    )
    keys = search(vector_store, embedder, "which relational database do we use?")
    assert keys[0] == "ns:db"
    assert len(keys) == len(set(keys)) == 2


def test_namespaces_never_mix(vector_store, embedder) -> None:
    vector_store.upsert(
        stored(
            embedder,
            entry("a", "deploy on Fridays", namespace="one"),
            entry("b", "deploy on Fridays", namespace="two"),
        )
    )
    assert search(vector_store, embedder, "deploy", namespace="one") == ["one:a"]


def test_expired_entries_stay_until_the_expiry_sweep(vector_store, embedder) -> None:
    """Expiry is checked by the retriever against the ledger; the sweep drops them here."""
    vector_store.upsert(
        stored(
            embedder,
            entry("live", "retry policy discussion", tier="C", expires_at=NOW + 60),
            entry("gone", "retry policy discussion", tier="C", expires_at=NOW - 60),
        )
    )
    both = search(vector_store, embedder, "retry", tier="C")
    assert set(both) == {"ns:live", "ns:gone"}
    vector_store.delete_expired(NOW)
    assert search(vector_store, embedder, "retry", tier="C", include_archived=True) == ["ns:live"]
    assert vector_store.entry_keys() == {"ns:live"}


def test_metadata_filters(vector_store, embedder) -> None:
    vector_store.upsert(
        stored(
            embedder,
            entry(
                "1",
                "cache invalidation",
                speaker="ann",
                tags=("perf", "cache"),
                chain_type="review",
            ),
            entry("2", "cache invalidation", speaker="bob", tags=("cache",), timestamp=NOW - 86400),
        )
    )
    assert search(vector_store, embedder, "cache", speaker="ann") == ["ns:1"]
    assert search(vector_store, embedder, "cache", tags=("perf", "cache")) == ["ns:1"]
    assert search(vector_store, embedder, "cache", chain_type="review") == ["ns:1"]
    assert search(vector_store, embedder, "cache", until=NOW - 3600) == ["ns:2"]
    assert search(vector_store, embedder, "cache", since=NOW - 3600) == ["ns:1"]


def test_delete_and_clear(vector_store, embedder) -> None:
    vector_store.upsert(stored(embedder, entry("1", "alpha"), entry("2", "beta", tier="C")))
    vector_store.delete(["ns:1"])
    assert vector_store.count("A") == 0
    assert vector_store.count("C") == 1
    vector_store.clear()
    assert vector_store.count("C") == 0
    assert search(vector_store, embedder, "beta", tier="C") == []


def test_each_namespace_and_tier_has_a_collection_found_again_on_reopening(
    vector_store, embedder
) -> None:
    vector_store.upsert(
        stored(
            embedder,
            entry("a", "deploy on Fridays", namespace="one"),
            entry("c", "deploy chat", tier="C", namespace="one"),
            entry("b", "deploy on Fridays", namespace="two"),
        )
    )
    reopened = ChromaVectorStore(vector_store.client, vector_store.prefix)
    assert (reopened.count("A"), reopened.count("C")) == (2, 1)
    assert search(reopened, embedder, "deploy", namespace="two") == ["two:b"]
    assert search(reopened, embedder, "deploy", namespace="nobody") == []
    reopened.delete(["one:a", "one:c"])
    assert reopened.entry_keys() == {"two:b"}


def test_collections_of_the_one_per_tier_layout_are_dropped_at_open(vector_store) -> None:
    """The ledger keeps every vector: a rebuild refills the per-namespace collections."""
    client, prefix = vector_store.client, vector_store.prefix
    legacy = client.get_or_create_collection(f"{prefix}_A", embedding_function=None)
    legacy.upsert(ids=["ns:old#0"], embeddings=[[1.0, 0.0]], metadatas=[{"key": "ns:old"}])
    reopened = ChromaVectorStore(client, prefix)
    assert f"{prefix}_A" not in {c.name for c in client.list_collections()}
    assert reopened.entry_keys() == set()
