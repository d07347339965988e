"""The vector store's contract: FakeVectorStore and ChromaVectorStore, embedded and as a
server. Vectors are given by hand: what they mean is the embedder's business."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from service.domain.entries import Chunk, StoredEntry, Tier
from service.domain.ports import VectorStore
from service.stores.chroma import ChromaVectorStore
from tests.fakes import T0, FakeVectorStore, make_entry, make_filters

NOW = T0 + 1
"""The ``now`` of ``make_filters``."""
X, Y, Z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)


Adapter = FakeVectorStore | ChromaVectorStore
"""The implementations held to the contract (``clear`` is theirs, not the port's)."""


@pytest.fixture(params=["fake", "embedded", pytest.param("server", marks=pytest.mark.slow)])
def store(
    request: pytest.FixtureRequest, chroma_store: Callable[[str], ChromaVectorStore]
) -> Adapter:
    if request.param == "fake":
        return FakeVectorStore()
    if request.param == "embedded":
        return chroma_store("")
    return chroma_store(str(request.getfixturevalue("chroma_server")))


def unit(v: Sequence[float]) -> tuple[float, ...]:
    norm = math.sqrt(sum(x * x for x in v))
    return tuple(x / norm for x in v)


def stored(id: str, *vectors: Sequence[float], tier: Tier = "A", **fields: Any) -> StoredEntry:
    """An entry with one chunk per vector (one along X if none is given)."""
    e = make_entry(id, f"text {id}", tier, **fields)
    chunks = tuple(Chunk(e.key, n, f"chunk {n}", unit(v)) for n, v in enumerate(vectors or [X]))
    return StoredEntry(e, chunks)


def search(
    store: VectorStore, vector: Sequence[float], tier: Tier = "A", limit: int = 10, **changes: Any
) -> list[str]:
    return [h.key for h in store.search(tier, unit(vector), make_filters(**changes), limit)]


def test_nearest_entries_first_one_hit_each_with_its_best_chunk(store: VectorStore) -> None:
    store.upsert([stored("near", Y, X), stored("mid", (1, 1, 0)), stored("far", Z)])
    hits = store.search("A", X, make_filters(), 10)
    assert [h.key for h in hits] == ["ns:near", "ns:mid", "ns:far"]
    assert hits[0].chunk == 1
    assert [h.score for h in hits] == pytest.approx([1.0, math.sqrt(0.5), 0.0], abs=1e-3)


def test_at_most_limit_entries_the_nearest(store: VectorStore) -> None:
    store.upsert([stored(str(n), (1, n / 4, 0)) for n in range(6)])
    assert search(store, X, limit=2) == ["ns:0", "ns:1"]


def test_chunks_of_one_entry_nearest_the_query_leave_room_for_limit_entries(
    store: VectorStore,
) -> None:
    near = [stored(n, (1, w, 0)) for n, w in (("a", 0.1), ("b", 0.2), ("c", 0.3))]
    store.upsert([stored("many", X, X, X, X), *near])
    assert search(store, X, limit=3) == ["ns:many", "ns:a", "ns:b"]
    assert search(store, X, limit=5) == ["ns:many", "ns:a", "ns:b", "ns:c"]


def test_writing_an_entry_again_replaces_its_vectors(store: VectorStore) -> None:
    store.upsert([stored("a", X)])
    store.upsert([stored("a", Y)])
    [hit] = store.search("A", Y, make_filters(), 10)
    assert hit.score == pytest.approx(1.0, abs=1e-3)
    assert store.count("A") == 1


def test_namespaces_never_mix(store: VectorStore) -> None:
    store.upsert([stored("a", namespace="one"), stored("b", namespace="two")])
    assert search(store, X, namespace="one") == ["one:a"]
    assert search(store, X, namespace="nobody") == []


def test_each_tier_is_searched_alone_and_tier_e_is_not_indexed(store: VectorStore) -> None:
    store.upsert([stored("a"), stored("c", tier="C", expires_at=NOW + 60), stored("e", tier="E")])
    assert search(store, X, "A") == ["ns:a"]
    assert search(store, X, "C") == ["ns:c"]
    assert store.entry_keys() == {"ns:a", "ns:c"}


def test_expired_entries_stay_until_the_expiry_sweep(store: VectorStore) -> None:
    """Expiry is checked by the searcher against the ledger; the sweep drops them here."""
    store.upsert(
        [
            stored("live", tier="C", expires_at=NOW + 60),
            stored("gone", tier="C", expires_at=NOW - 60),
        ]
    )
    assert set(search(store, X, "C")) == {"ns:live", "ns:gone"}
    store.delete_expired(NOW)
    assert search(store, X, "C", include_archived=True) == ["ns:live"]
    assert store.entry_keys() == {"ns:live"}


def test_metadata_filters(store: VectorStore) -> None:
    store.upsert(
        [
            stored("1", speaker="ann", tags=("perf", "cache"), chain_type="review"),
            stored("2", speaker="bob", tags=("cache",), timestamp=T0 - 86400, kind="pattern"),
        ]
    )
    assert search(store, X, speaker="ann") == ["ns:1"]
    assert search(store, X, tags=("perf", "cache")) == ["ns:1"]
    assert set(search(store, X, tags=("cache",))) == {"ns:1", "ns:2"}
    assert search(store, X, chain_type="review") == ["ns:1"]
    assert search(store, X, until=T0 - 3600) == ["ns:2"]
    assert search(store, X, since=T0 - 3600) == ["ns:1"]
    assert search(store, X, kind="pattern") == ["ns:2"]
    assert search(store, X, speaker="ann", kind="pattern") == []


def test_count_counts_chunks_and_delete_removes_them_all(store: VectorStore) -> None:
    store.upsert([stored("1", X, Y, Z), stored("2", tier="C"), stored("3")])
    assert (store.count("A"), store.count("C")) == (4, 1)
    store.delete(["ns:1", "ns:missing", "other:1"])
    assert (store.count("A"), store.count("C")) == (1, 1)
    assert search(store, Y) == ["ns:3"]


def test_clear_empties_every_collection(store: Adapter) -> None:
    store.upsert([stored("1"), stored("2", tier="C"), stored("3", namespace="other")])
    store.clear()
    assert (store.count("A"), store.count("C")) == (0, 0)
    assert store.entry_keys() == set()
    assert search(store, X, "C") == []
    store.upsert([stored("4")])
    assert search(store, X) == ["ns:4"]


def test_health_is_ok_when_reachable(store: VectorStore) -> None:
    assert store.health() == "ok"


def test_erasing_a_namespace_drops_its_records_only(store: VectorStore) -> None:
    store.upsert([stored("1"), stored("2", tier="C"), stored("1", namespace="other")])
    store.erase_namespace("ns")
    store.erase_namespace("never-written")
    assert search(store, X) == [] and search(store, X, tier="C") == []
    assert search(store, X, namespace="other") == ["other:1"]
    assert store.entry_keys() == {"other:1"}
    store.upsert([stored("3")])  # the namespace can be written again
    assert search(store, X) == ["ns:3"]
