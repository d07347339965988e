"""The write path over fake stores: ledger first, then both indexes."""

from __future__ import annotations

import pytest

from service.domain.memory import Memory
from service.errors import Unavailable
from tests.fakes import FakeEmbedder, FakeKeywordStore, FakeLedger, FakeVectorStore, make_entry


@pytest.fixture
def ledger() -> FakeLedger:
    return FakeLedger()


@pytest.fixture
def vectors() -> FakeVectorStore:
    return FakeVectorStore()


@pytest.fixture
def keywords() -> FakeKeywordStore:
    return FakeKeywordStore()


@pytest.fixture
def embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def memory(ledger, vectors, keywords, embedder) -> Memory:
    return Memory(ledger, vectors, keywords, embedder, chunk_words=5, chunk_overlap=1)


def test_write_records_and_indexes_every_entry(memory, ledger, vectors, keywords) -> None:
    outcome = memory.write(
        [
            make_entry("a", "alice likes tea", "A"),
            make_entry("c", "standup at nine", "C"),
            make_entry("e", "GET /health 200", "E"),
        ]
    )
    assert outcome.ids == ["a", "c", "e"]
    assert (outcome.embedded, outcome.indexed) == (2, 3)
    assert set(ledger.get(["ns:a", "ns:c", "ns:e"])) == {"ns:a", "ns:c", "ns:e"}
    assert ledger.states == {"ns:a": "synced", "ns:c": "synced", "ns:e": "synced"}
    assert ledger.unsynced() == ([], [])
    assert vectors.tiers["A"].keys() == {"ns:a"}
    assert vectors.tiers["C"].keys() == {"ns:c"}
    assert keywords.keys == {"ns:a", "ns:c", "ns:e"}


def test_get_returns_the_entry_as_written(memory) -> None:
    entry = make_entry("a", "alice likes tea", "A", speaker="alice", tags=("pref",))
    memory.write([entry])
    stored = memory.get("ns:a")
    assert stored is not None
    assert stored.entry == entry
    assert memory.get("ns:missing") is None


def test_long_entry_is_kept_as_chunks_with_one_vector_each(memory) -> None:
    memory.write([make_entry("a", "one two three four five six seven eight nine", "A")])
    stored = memory.get("ns:a")
    assert stored is not None
    assert [c.text for c in stored.chunks] == [
        "one two three four five",
        "five six seven eight nine",
    ]
    assert [c.number for c in stored.chunks] == [0, 1]
    assert all(c.key == "ns:a" and c.vector is not None for c in stored.chunks)


def test_embedded_tiers_embed_speaker_and_chunk(memory, embedder) -> None:
    memory.write(
        [
            make_entry("a", "I prefer tea", "A", speaker="alice"),
            make_entry("c", "standup moved one two three four", "C", speaker="bob"),
            make_entry("n", "no speaker here", "A"),
        ]
    )
    assert embedder.texts == [
        "alice: I prefer tea",
        "bob: standup moved one two three",
        "bob: three four",
        "no speaker here",
    ]
    assert len(embedder.calls) == 1  # one model call per write


def test_stored_vector_is_that_of_speaker_and_chunk(memory, embedder) -> None:
    memory.write([make_entry("a", "I prefer tea", "A", speaker="alice")])
    stored = memory.get("ns:a")
    assert stored is not None
    assert stored.chunks[0].vector == embedder.vector("alice: I prefer tea")
    assert stored.chunks[0].text == "I prefer tea"


def test_tier_e_is_never_embedded(memory, ledger, vectors, keywords, embedder) -> None:
    outcome = memory.write([make_entry("e", "GET /health 200", "E", speaker="nginx")])
    assert outcome.embedded == 0
    assert embedder.calls == []
    assert vectors.keys == set()
    assert keywords.keys == {"ns:e"}
    stored = ledger.get(["ns:e"])["ns:e"]
    assert all(c.vector is None for c in stored.chunks)


def test_writing_an_existing_id_replaces_it(memory, ledger, vectors, keywords) -> None:
    memory.write([make_entry("a", "old words", "A")])
    memory.write([make_entry("a", "new words", "A")])
    stored = ledger.get(["ns:a"])["ns:a"]
    assert stored.entry.text == "new words"
    assert vectors.tiers["A"]["ns:a"].entry.text == "new words"
    assert keywords.entries["ns:a"].entry.text == "new words"
    assert len(ledger.entries) == 1


def test_replacing_with_another_tier_leaves_no_trace_of_the_old(memory, vectors, keywords) -> None:
    memory.write([make_entry("a", "was a fact", "A")])
    memory.write([make_entry("a", "now a log line", "E")])
    assert vectors.keys == set()
    assert keywords.entries["ns:a"].entry.tier == "E"


def test_same_id_in_another_namespace_is_another_entry(memory, ledger) -> None:
    memory.write([make_entry("a", "mine", "A", namespace="ns")])
    memory.write([make_entry("a", "theirs", "A", namespace="other")])
    assert ledger.get(["ns:a"])["ns:a"].entry.text == "mine"
    assert ledger.get(["other:a"])["other:a"].entry.text == "theirs"


def test_delete_removes_from_ledger_and_both_indexes(memory, ledger, vectors, keywords) -> None:
    memory.write([make_entry("a", "alice likes tea", "A"), make_entry("e", "log", "E")])
    assert memory.delete(["ns:a", "ns:e", "ns:missing"]) == ["ns:a", "ns:e"]
    assert ledger.entries == {}
    assert vectors.keys == set()
    assert keywords.keys == set()
    assert memory.get("ns:a") is None


def test_delete_of_nothing_known_changes_nothing(memory, keywords) -> None:
    memory.write([make_entry("a", "kept", "A")])
    assert memory.delete(["ns:missing"]) == []
    assert keywords.keys == {"ns:a"}


def test_recover_reindexes_pending_writes_and_finishes_deletes(
    memory, ledger, vectors, keywords
) -> None:
    # A crash after the ledger recorded these but before the indexes were updated.
    memory.write([make_entry("gone", "to delete", "A")])
    ledger.mark_deleting(["ns:gone"])
    ledger.put(memory.prepare([make_entry("a", "alice likes tea", "A"), make_entry("e", "x", "E")]))
    assert memory.recover() == (2, 1)
    assert ledger.unsynced() == ([], [])
    assert vectors.keys == {"ns:a"}
    assert keywords.keys == {"ns:a", "ns:e"}
    assert "ns:gone" not in ledger.entries


def test_recover_with_nothing_pending_does_nothing(memory) -> None:
    memory.write([make_entry("a", "fine", "A")])
    assert memory.recover() == (0, 0)


def test_without_a_model_embedded_tiers_cannot_be_written(ledger, vectors, keywords) -> None:
    memory = Memory(ledger, vectors, keywords, None)
    with pytest.raises(Unavailable):
        memory.write([make_entry("e", "log", "E"), make_entry("a", "alice likes tea", "A")])
    # Nothing of the failed batch was recorded.
    assert ledger.entries == {}
    assert keywords.keys == set()


def test_without_a_model_tier_e_is_still_written(ledger, vectors, keywords) -> None:
    memory = Memory(ledger, vectors, keywords, None)
    outcome = memory.write([make_entry("e", "log", "E")])
    assert (outcome.embedded, outcome.indexed) == (0, 1)
    assert keywords.keys == {"ns:e"}


def test_archiving_flags_entries_and_restoring_clears_the_flag(memory, keywords, vectors) -> None:
    memory.write([make_entry("a", "alice likes tea", "A")])
    assert memory.set_archived(["ns:a", "ns:missing"], True) == 1
    assert memory.set_archived(["ns:a"], True) == 0
    assert keywords.entries["ns:a"].entry.archived
    assert vectors.tiers["A"]["ns:a"].entry.archived
    assert memory.set_archived(["ns:a"], False) == 1
    assert not keywords.entries["ns:a"].entry.archived


def test_rebuild_recreates_both_indexes_from_the_ledger(memory, vectors, keywords) -> None:
    memory.write([make_entry("a", "alice likes tea", "A"), make_entry("e", "log", "E")])
    vectors.clear()
    keywords.apply((), ["ns:e"])
    assert memory.rebuild() == 2
    assert vectors.keys == {"ns:a"}
    assert keywords.keys == {"ns:a", "ns:e"}
