"""The write path over fake stores: ledger first, then both indexes."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from service.domain.entries import Entry, HistoryEvent, StoredEntry
from service.domain.errors import EngineUnavailable
from service.domain.memory import Memory
from service.domain.memory.outcomes import Recovered, WriteOutcome
from service.domain.ports import Embedder
from service.settings import ChunkingSettings
from tests.fakes import (
    T0,
    FakeEmbedder,
    FakeStores,
    FakeVectorStore,
    fake_memory,
    make_entry,
    memory_over,
    stored_entry,
)
from tests.settings import CHUNKING

FIVE_WORDS = ChunkingSettings(words=5, overlap=1)


@pytest.fixture
def stores() -> FakeStores:
    return fake_memory(FIVE_WORDS, clock=lambda: T0)


@pytest.fixture
def memory(stores: FakeStores) -> Memory:
    return stores.memory


def another_memory(
    stores: FakeStores,
    embedder: Embedder | None,
    chunking: ChunkingSettings,
    *,
    clock: Callable[[], float],
) -> Memory:
    """Another memory over the test's stores, ``embedder`` its model (None: no model)."""
    return memory_over(
        stores.ledger, stores.vectors, stores.keywords, embedder, chunking, clock=clock
    )


def test_write_records_and_indexes_every_entry(memory: Memory, stores: FakeStores) -> None:
    outcome = memory.writer.write(
        [
            make_entry("a", "alice likes tea", "A"),
            make_entry("c", "standup at nine", "C"),
            make_entry("e", "GET /health 200", "E"),
        ]
    )
    assert outcome.ids == ["a", "c", "e"]
    assert (outcome.embedded, outcome.indexed) == (2, 3)
    assert set(stores.ledger.get(["ns:a", "ns:c", "ns:e"])) == {"ns:a", "ns:c", "ns:e"}
    assert stores.ledger.states == {"ns:a": "synced", "ns:c": "synced", "ns:e": "synced"}
    assert stores.ledger.unsynced() == ([], [])
    assert stores.vectors.tiers["A"].keys() == {"ns:a"}
    assert stores.vectors.tiers["C"].keys() == {"ns:c"}
    assert stores.keywords.keys == {"ns:a", "ns:c", "ns:e"}


def test_get_returns_the_entry_as_written(memory: Memory) -> None:
    entry = make_entry("a", "alice likes tea", "A", speaker="alice", tags=("pref",))
    memory.writer.write([entry])
    stored = stored_entry(memory, "ns:a")
    assert stored is not None
    assert stored.entry == entry
    assert stored_entry(memory, "ns:missing") is None


def test_long_entry_is_kept_as_chunks_with_one_vector_each(memory: Memory) -> None:
    memory.writer.write([make_entry("a", "one two three four five six seven eight nine", "A")])
    stored = stored_entry(memory, "ns:a")
    assert stored is not None
    assert [c.text for c in stored.chunks] == [
        "one two three four five",
        "five six seven eight nine",
    ]
    assert [c.number for c in stored.chunks] == [0, 1]
    assert all(c.key == "ns:a" and c.vector is not None for c in stored.chunks)


def test_embedded_tiers_embed_speaker_and_chunk(memory: Memory, stores: FakeStores) -> None:
    memory.writer.write(
        [
            make_entry("a", "I prefer tea", "A", speaker="alice"),
            make_entry("c", "standup moved one two three four", "C", speaker="bob"),
            make_entry("n", "no speaker here", "A"),
        ]
    )
    assert stores.embedder.texts == [
        "alice: I prefer tea",
        "bob: standup moved one two three",
        "bob: three four",
        "no speaker here",
    ]
    assert len(stores.embedder.calls) == 1  # one model call per write


def test_stored_vector_is_that_of_speaker_and_chunk(memory: Memory, stores: FakeStores) -> None:
    memory.writer.write([make_entry("a", "I prefer tea", "A", speaker="alice")])
    stored = stored_entry(memory, "ns:a")
    assert stored is not None
    assert stored.chunks[0].vector == stores.embedder.vector("alice: I prefer tea")
    assert stored.chunks[0].text == "I prefer tea"


def test_tier_e_is_never_embedded(memory: Memory, stores: FakeStores) -> None:
    outcome = memory.writer.write([make_entry("e", "GET /health 200", "E", speaker="nginx")])
    assert outcome.embedded == 0
    assert stores.embedder.calls == []
    assert stores.vectors.keys == set()
    assert stores.keywords.keys == {"ns:e"}
    stored = stores.ledger.get(["ns:e"])["ns:e"]
    assert all(c.vector is None for c in stored.chunks)


def test_writing_an_existing_id_replaces_it(memory: Memory, stores: FakeStores) -> None:
    memory.writer.write([make_entry("a", "old words", "A")])
    memory.writer.write([make_entry("a", "new words", "A")])
    stored = stores.ledger.get(["ns:a"])["ns:a"]
    assert stored.entry.text == "new words"
    assert stores.vectors.tiers["A"]["ns:a"].entry.text == "new words"
    assert stores.keywords.entries["ns:a"].entry.text == "new words"
    assert len(stores.ledger.entries) == 1


def test_replacing_with_another_tier_leaves_no_trace_of_the_old(
    memory: Memory, stores: FakeStores
) -> None:
    memory.writer.write([make_entry("a", "was a fact", "A")])
    memory.writer.write([make_entry("a", "now a log line", "E")])
    assert stores.vectors.keys == set()
    assert stores.keywords.entries["ns:a"].entry.tier == "E"


def changes(vectors: FakeVectorStore) -> list[tuple[str, list[str]]]:
    """The upserts and deletes asked of the vector store (a write of tier A or C entries also
    searches it for similar entries)."""
    return [call for call in vectors.calls if call[0] != "search"]


def test_a_tier_e_write_asks_nothing_of_the_vector_store(
    memory: Memory, stores: FakeStores
) -> None:
    memory.writer.write(
        [
            make_entry("e1", "GET /health 200", "E"),
            make_entry("e2", "deploy finished", "E", namespace="other"),
        ]
    )
    memory.writer.write([make_entry("e1", "GET /health 503", "E")])  # rewritten, still tier E
    assert stores.vectors.calls == []
    assert stores.ledger.states == {"ns:e1": "synced", "other:e2": "synced"}
    assert stores.keywords.entries["ns:e1"].entry.text == "GET /health 503"
    assert memory.repair.indexes_match_ledger()


def test_an_entry_rewritten_as_tier_e_has_its_vectors_deleted(
    memory: Memory, stores: FakeStores
) -> None:
    memory.writer.write([make_entry("a", "was a fact", "A")])
    assert changes(stores.vectors) == [("upsert", ["ns:a"])]  # a new entry: nothing to delete
    stores.vectors.calls.clear()
    memory.writer.write(
        [make_entry("a", "now a log line", "E"), make_entry("e", "a new log line", "E")]
    )
    assert stores.vectors.calls == [("delete", ["ns:a"])]
    assert stores.vectors.keys == set()
    stores.vectors.calls.clear()
    memory.writer.write([make_entry("a", "still a log line", "E")])
    assert stores.vectors.calls == []


def test_a_re_embedded_entry_keeps_none_of_its_old_chunks(
    memory: Memory, stores: FakeStores
) -> None:
    memory.writer.write([make_entry("a", "one two three four five six seven eight nine", "A")])
    assert stores.vectors.count("A") == 2
    stores.vectors.calls.clear()
    memory.writer.write([make_entry("a", "one two three", "A")])
    assert changes(stores.vectors) == [("delete", ["ns:a"]), ("upsert", ["ns:a"])]
    assert stores.vectors.count("A") == 1


def test_an_entry_whose_indexing_was_unfinished_has_its_vectors_deleted_when_rewritten(
    memory: Memory, stores: FakeStores, monkeypatch: pytest.MonkeyPatch
) -> None:
    upsert = stores.vectors.upsert

    def away(stored: Sequence[StoredEntry]) -> None:
        upsert(stored)  # reached the store, but its answer was lost
        raise EngineUnavailable("vector store", "connection reset")

    monkeypatch.setattr(stores.vectors, "upsert", away)
    assert memory.writer.write([make_entry("a", "was a fact", "A")]).indexed == 0
    assert stores.ledger.states == {"ns:a": "pending"} and stores.vectors.keys == {"ns:a"}
    monkeypatch.setattr(stores.vectors, "upsert", upsert)
    stores.vectors.calls.clear()
    memory.writer.write([make_entry("a", "now a log line", "E")])
    assert stores.vectors.calls == [("delete", ["ns:a"])]
    assert stores.ledger.states == {"ns:a": "synced"} and stores.vectors.keys == set()


def test_recovery_deletes_whatever_vectors_a_pending_entry_may_have_left(
    memory: Memory, stores: FakeStores
) -> None:
    memory.writer.write([make_entry("a", "was a fact", "A")])
    # A crash after the ledger recorded the rewrite, before the indexes were updated.
    stores.ledger.put(memory.preparer.prepare([make_entry("a", "now a log line", "E")]))
    stores.ledger.put(memory.preparer.prepare([make_entry("e", "a new log line", "E")]))
    stores.vectors.calls.clear()
    assert memory.repair.recover().indexed == 2
    assert stores.vectors.calls == [("delete", ["ns:a", "ns:e"])]  # what each left is not known
    assert stores.vectors.keys == set() and stores.ledger.unsynced() == ([], [])


def test_archiving_tier_e_entries_asks_nothing_of_the_vector_store(
    memory: Memory, stores: FakeStores
) -> None:
    memory.writer.write([make_entry("e", "GET /health 200", "E")])
    assert memory.lifecycle.set_archived(["ns:e"], True) == 1
    assert memory.lifecycle.set_archived(["ns:e"], False) == 1
    assert stores.vectors.calls == []
    assert not stores.keywords.entries["ns:e"].entry.archived


def test_same_id_in_another_namespace_is_another_entry(memory: Memory, stores: FakeStores) -> None:
    memory.writer.write([make_entry("a", "mine", "A", namespace="ns")])
    memory.writer.write([make_entry("a", "theirs", "A", namespace="other")])
    assert stores.ledger.get(["ns:a"])["ns:a"].entry.text == "mine"
    assert stores.ledger.get(["other:a"])["other:a"].entry.text == "theirs"


def test_delete_removes_from_ledger_and_both_indexes(memory: Memory, stores: FakeStores) -> None:
    memory.writer.write([make_entry("a", "alice likes tea", "A"), make_entry("e", "log", "E")])
    assert memory.lifecycle.delete(["ns:a", "ns:e", "ns:missing"]) == ["ns:a", "ns:e"]
    assert stores.ledger.entries == {}
    assert stores.vectors.keys == set()
    assert stores.keywords.keys == set()
    assert stored_entry(memory, "ns:a") is None


def test_delete_of_nothing_known_changes_nothing(memory: Memory, stores: FakeStores) -> None:
    memory.writer.write([make_entry("a", "kept", "A")])
    assert memory.lifecycle.delete(["ns:missing"]) == []
    assert stores.keywords.keys == {"ns:a"}


def test_recover_reindexes_pending_writes_and_finishes_deletes(
    memory: Memory, stores: FakeStores
) -> None:
    # A crash after the ledger recorded these but before the indexes were updated.
    memory.writer.write([make_entry("gone", "to delete", "A")])
    stores.ledger.mark_deleting(["ns:gone"])
    stores.ledger.put(
        memory.preparer.prepare(
            [make_entry("a", "alice likes tea", "A"), make_entry("e", "x", "E")]
        )
    )
    assert memory.repair.recover() == Recovered(indexed=2, removed=1, quarantined=0)
    assert stores.ledger.unsynced() == ([], [])
    assert stores.vectors.keys == {"ns:a"}
    assert stores.keywords.keys == {"ns:a", "ns:e"}
    assert "ns:gone" not in stores.ledger.entries


def test_recover_with_nothing_pending_does_nothing(memory: Memory) -> None:
    memory.writer.write([make_entry("a", "fine", "A")])
    assert memory.repair.recover() == Recovered(indexed=0, removed=0, quarantined=0)


def test_without_a_model_embedded_tiers_are_stored_without_vectors(stores: FakeStores) -> None:
    memory = another_memory(stores, None, CHUNKING, clock=lambda: T0)
    outcome = memory.writer.write(
        [make_entry("e", "log", "E"), make_entry("a", "alice likes tea", "A")]
    )
    assert (outcome.embedded, outcome.indexed) == (0, 2)
    stored = stores.ledger.get(["ns:a"])["ns:a"]
    assert stored.chunks and all(c.vector is None for c in stored.chunks)
    assert not stored.has_vectors and not stored.in_vector_index
    # Durable and keyword-searchable at once; waiting for a model to be embedded.
    assert stores.ledger.unsynced() == ([], [])
    assert stores.keywords.keys == {"ns:a", "ns:e"}
    assert stores.vectors.keys == set()
    assert stores.ledger.missing_vectors() == ["ns:a"]
    assert memory.repair.indexes_match_ledger()


def test_backfill_embeds_entries_stored_without_a_model_once_one_is_loaded(
    stores: FakeStores,
) -> None:
    without = another_memory(stores, None, FIVE_WORDS, clock=lambda: T0)
    assert without.repair.backfill() == 0  # nothing to embed with
    without.writer.write(
        [
            make_entry("a", "alice likes tea", "A", speaker="alice"),
            make_entry("c", "standup moved one two three four", "C"),
            make_entry("e", "GET /health 200", "E"),
        ]
    )
    with_model = another_memory(stores, stores.embedder, FIVE_WORDS, clock=lambda: T0 + 42)
    assert with_model.repair.backfill() == 2
    assert sorted(stores.embedder.texts) == sorted(
        ["alice: alice likes tea", "standup moved one two three", "three four"]
    )
    a = stores.ledger.get(["ns:a"])["ns:a"]
    assert a.chunks[0].vector == stores.embedder.vector("alice: alice likes tea")
    assert stores.vectors.tiers["A"].keys() == {"ns:a"}
    assert stores.vectors.tiers["C"].keys() == {"ns:c"}
    assert stores.vectors.count("C") == 2  # one record per chunk
    assert stores.ledger.missing_vectors() == []
    assert stores.ledger.history("ns:a")[-1] == HistoryEvent(T0 + 42, "embedded", "backfill")
    assert with_model.repair.indexes_match_ledger()
    calls = len(stores.embedder.calls)
    assert with_model.repair.backfill() == 0
    assert len(stores.embedder.calls) == calls


def test_backfill_embeds_archived_entries_but_keeps_them_out_of_the_vector_index(
    stores: FakeStores,
) -> None:
    without = another_memory(stores, None, CHUNKING, clock=lambda: T0)
    without.writer.write([make_entry("c", "old standup", "C")])
    without.lifecycle.set_archived(["ns:c"], True)
    memory = another_memory(stores, stores.embedder, CHUNKING, clock=lambda: T0)
    assert memory.repair.backfill() == 1
    stored = stores.ledger.get(["ns:c"])["ns:c"]
    assert stored.has_vectors and stored.entry.archived
    assert stores.vectors.keys == set()
    assert memory.repair.indexes_match_ledger()


class HookedEmbedder(FakeEmbedder):
    """Runs ``hook`` during each embed call: a write racing a slow model call."""

    def __init__(self) -> None:
        super().__init__()
        self.hook: Callable[[], None] = lambda: None

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.hook()
        return super().embed(texts)


def test_backfill_skips_entries_deleted_or_rewritten_while_it_embedded(stores: FakeStores) -> None:
    without = another_memory(stores, None, CHUNKING, clock=lambda: T0)
    without.writer.write(
        [make_entry("gone", "to be deleted", "A"), make_entry("new", "old text", "A")]
    )
    embedder = HookedEmbedder()
    memory = another_memory(stores, embedder, CHUNKING, clock=lambda: T0)

    def race() -> None:
        embedder.hook = lambda: None
        memory.lifecycle.delete(["ns:gone"])
        without.writer.write([make_entry("new", "new text", "A")])

    embedder.hook = race
    assert memory.repair.backfill() == 0
    assert stored_entry(memory, "ns:gone") is None
    assert "ns:gone" not in stores.vectors.keys and "ns:gone" not in stores.keywords.keys
    new = stored_entry(memory, "ns:new")
    assert new is not None and new.entry.text == "new text"
    assert stores.keywords.entries["ns:new"].entry.text == "new text"
    assert stores.vectors.keys == set()  # the stale text was not indexed
    # The rewrite, still without vectors, is embedded by the next run.
    assert memory.repair.backfill() == 1
    assert stores.vectors.tiers["A"]["ns:new"].entry.text == "new text"
    assert embedder.texts[-1] == "new text"


def test_tokens_are_counted_by_the_model_for_every_tier(memory: Memory, stores: FakeStores) -> None:
    memory.writer.write(
        [
            make_entry("a", "one two three four five six seven eight nine", "A"),
            make_entry("e", "GET /health 200", "E"),
        ]
    )
    stored = stores.ledger.get(["ns:a", "ns:e"])
    # Two chunks of five words, each plus two special tokens.
    assert stored["ns:a"].tokens == (5 + 2) * 2
    assert stored["ns:e"].tokens == len(["GET", "health", "200"]) + 2


def test_without_a_model_tokens_are_estimated_from_words(stores: FakeStores) -> None:
    memory = another_memory(stores, None, CHUNKING, clock=lambda: T0)
    memory.writer.write([make_entry("a", "one two three four five six", "A")])
    assert stores.ledger.get(["ns:a"])["ns:a"].tokens == 6 * 4 // 3


def test_without_a_model_tier_e_is_still_written(stores: FakeStores) -> None:
    memory = another_memory(stores, None, CHUNKING, clock=lambda: T0)
    outcome = memory.writer.write([make_entry("e", "log", "E")])
    assert (outcome.embedded, outcome.indexed) == (0, 1)
    assert stores.keywords.keys == {"ns:e"}


def test_archiving_flags_entries_and_restoring_clears_the_flag(
    memory: Memory, stores: FakeStores
) -> None:
    memory.writer.write([make_entry("a", "alice likes tea", "A")])
    assert memory.lifecycle.set_archived(["ns:a", "ns:missing"], True) == 1
    assert memory.lifecycle.set_archived(["ns:a"], True) == 0
    assert stores.keywords.entries["ns:a"].entry.archived
    # Archived entries leave the vector index; the ledger keeps their vectors.
    assert stores.vectors.keys == set()
    archived = stored_entry(memory, "ns:a")
    assert archived is not None and archived.has_vectors
    assert memory.repair.indexes_match_ledger()
    assert memory.lifecycle.set_archived(["ns:a"], False) == 1
    assert not stores.keywords.entries["ns:a"].entry.archived
    assert stores.vectors.tiers["A"].keys() == {"ns:a"}
    assert memory.repair.indexes_match_ledger()


def test_archiving_and_restoring_never_re_embed(memory: Memory, stores: FakeStores) -> None:
    memory.writer.write([make_entry("a", "alice likes tea", "A")])
    calls = len(stores.embedder.calls)
    memory.lifecycle.set_archived(["ns:a"], True)
    memory.lifecycle.set_archived(["ns:a"], False)
    assert len(stores.embedder.calls) == calls


def test_history_records_who_did_what_and_when(stores: FakeStores) -> None:
    now = [100.0]
    memory = another_memory(stores, stores.embedder, CHUNKING, clock=lambda: now[0])
    memory.writer.write([make_entry("a", "first", "A")], actor="key:1")
    now[0] = 200.0
    memory.writer.write([make_entry("a", "second", "A")], actor="alice")
    now[0] = 300.0
    memory.lifecycle.set_archived(["ns:a"], True, actor="scheduler")
    now[0] = 400.0
    memory.lifecycle.set_archived(["ns:a"], False, actor="ops")
    now[0] = 500.0
    memory.lifecycle.update_metadata(["ns:a"], {"k": "v"}, actor="ops")
    now[0] = 600.0
    memory.lifecycle.delete(["ns:a"], actor="bob")
    assert stores.ledger.history("ns:a") == [
        HistoryEvent(100.0, "created", "key:1"),
        HistoryEvent(200.0, "updated", "alice"),
        HistoryEvent(300.0, "archived", "scheduler"),
        HistoryEvent(400.0, "restored", "ops"),
        HistoryEvent(500.0, "updated", "ops"),
        HistoryEvent(600.0, "deleted", "bob"),
    ]
    assert stores.ledger.history("ns:never") == []


def test_unchanged_archive_flag_adds_no_history(memory: Memory, stores: FakeStores) -> None:
    memory.writer.write([make_entry("a", "x", "A")])
    memory.lifecycle.set_archived(["ns:a"], False)
    assert [h.action for h in stores.ledger.history("ns:a")] == ["created"]


def test_update_metadata_keeps_text_and_vectors(memory: Memory, stores: FakeStores) -> None:
    memory.writer.write([make_entry("a", "alice likes tea", "A", metadata={"x": 1})])
    before = stored_entry(memory, "ns:a")
    calls = len(stores.embedder.calls)
    assert memory.lifecycle.update_metadata(["ns:a", "ns:missing"], {"y": 2}) == 1
    after = stored_entry(memory, "ns:a")
    assert after is not None and before is not None
    assert after.entry.metadata == {"x": 1, "y": 2}
    assert after.chunks == before.chunks and after.tokens == before.tokens
    assert len(stores.embedder.calls) == calls
    assert stores.vectors.tiers["A"]["ns:a"].entry.metadata == {"x": 1, "y": 2}


def test_rebuild_recreates_both_indexes_from_the_ledger(memory: Memory, stores: FakeStores) -> None:
    memory.writer.write([make_entry("a", "alice likes tea", "A"), make_entry("e", "log", "E")])
    stores.vectors.clear()
    stores.keywords.apply((), ["ns:e"])
    assert not memory.repair.indexes_match_ledger()
    assert memory.repair.rebuild() == 2
    assert stores.vectors.keys == {"ns:a"}
    assert stores.keywords.keys == {"ns:a", "ns:e"}
    assert memory.repair.indexes_match_ledger()


def test_each_turn_of_a_thread_gets_the_turn_before_as_context(
    memory: Memory, stores: FakeStores
) -> None:
    memory.writer.write(
        [
            make_entry("t1", "Did you book the flights?", "C", speaker="ann", thread="trip"),
            make_entry("t2", "Yes, to Lisbon on Friday.", "C", speaker="bob", thread="trip"),
            make_entry("x", "unrelated", "C", speaker="bob"),
        ]
    )
    memory.writer.write([make_entry("t3", "Great, thanks!", "C", speaker="ann", thread="trip")])
    memory.writer.write([make_entry("o", "Other thread", "C", thread="work")])
    context = {k.split(":")[1]: s.entry.context for k, s in stores.ledger.entries.items()}
    assert context == {
        "t1": None,
        "t2": "ann: Did you book the flights?",
        "x": None,
        "t3": "bob: Yes, to Lisbon on Friday.",
        "o": None,
    }


def test_threads_do_not_cross_namespaces(memory: Memory, stores: FakeStores) -> None:
    memory.writer.write([make_entry("a", "first", "E", thread="t", namespace="one")])
    memory.writer.write([make_entry("b", "second", "E", thread="t", namespace="two")])
    assert stores.ledger.entries["two:b"].entry.context is None


def test_rewriting_the_last_turn_does_not_make_it_its_own_context(
    memory: Memory, stores: FakeStores
) -> None:
    memory.writer.write([make_entry("t1", "hello", "E", thread="t")])
    memory.writer.write([make_entry("t1", "hello again", "E", thread="t")])
    assert stores.ledger.entries["ns:t1"].entry.context is None


def _writers_blocked_behind_first(
    memory: Memory, embedder: GateEmbedder, batches: list[list[Entry]]
) -> list[WriteOutcome | Exception | None]:
    """Starts a write of ``batches[0]`` whose model call waits until every other batch's
    writer has queued, then those writers; returns each writer's outcome or error."""
    import threading

    release = threading.Event()
    results: list[WriteOutcome | Exception | None] = [None] * len(batches)

    def hook() -> None:
        embedder.hook = lambda: None
        release.wait(5)

    embedder.hook = hook

    def run(n: int) -> None:
        try:
            results[n] = memory.writer.write(batches[n], actor=f"agent{n}")
        except Exception as error:
            results[n] = error

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(batches))]
    threads[0].start()
    while not embedder.hook_started:
        threading.Event().wait(0.001)
    for thread in threads[1:]:
        thread.start()
    while memory.writer._writes.waiting < len(batches) - 1:
        threading.Event().wait(0.001)
    release.set()
    for thread in threads:
        thread.join(5)
    return results


class GateEmbedder(HookedEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.hook_started = False

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.hook_started = True
        return super().embed(texts)


def test_writes_waiting_behind_a_commit_are_embedded_and_indexed_together(
    stores: FakeStores,
) -> None:
    embedder = GateEmbedder()
    memory = another_memory(stores, embedder, CHUNKING, clock=lambda: T0)
    batches = [[make_entry(f"w{n}", f"decision number {n}", "A")] for n in range(4)]
    results = _writers_blocked_behind_first(memory, embedder, batches)
    written = [r for r in results if isinstance(r, WriteOutcome)]
    assert [r.ids for r in written] == [["w0"], ["w1"], ["w2"], ["w3"]]
    assert all(r.embedded == 1 for r in written)
    # The first write alone, then the three that queued behind it in one model call.
    assert [len(call) for call in embedder.calls] == [1, 3]
    assert stores.ledger.states == {f"ns:w{n}": "synced" for n in range(4)}
    assert [e.actor for e in stores.ledger.history("ns:w2")] == ["agent2"]
    assert stores.vectors.tiers["A"].keys() == {f"ns:w{n}" for n in range(4)}


def test_writes_of_the_same_key_are_applied_in_arrival_order(stores: FakeStores) -> None:
    embedder = GateEmbedder()
    memory = another_memory(stores, embedder, CHUNKING, clock=lambda: T0)
    batches = [
        [make_entry("first", "unrelated", "A")],
        [make_entry("x", "old text", "A")],
        [make_entry("x", "new text", "A")],
    ]
    _writers_blocked_behind_first(memory, embedder, batches)
    assert [len(call) for call in embedder.calls] == [1, 1, 1]
    x = stored_entry(memory, "ns:x")
    assert x is not None and x.entry.text == "new text"
    assert stores.keywords.entries["ns:x"].entry.text == "new text"
    assert [e.action for e in stores.ledger.history("ns:x")] == ["created", "updated"]


def test_a_write_that_fails_in_a_group_fails_alone(
    stores: FakeStores, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = GateEmbedder()
    memory = another_memory(stores, embedder, CHUNKING, clock=lambda: T0)
    original = embedder.embed

    def embed_refusing_poison(texts: Sequence[str]) -> list[tuple[float, ...]]:
        if any("poison" in t for t in texts):
            raise RuntimeError("model failed")
        return original(texts)

    monkeypatch.setattr(embedder, "embed", embed_refusing_poison)
    texts = ["first decision", "second decision", "poison pill", "third decision"]
    batches = [[make_entry(f"w{n}", text, "A")] for n, text in enumerate(texts)]
    results = _writers_blocked_behind_first(memory, embedder, batches)
    assert isinstance(results[2], RuntimeError)
    written = [r for r in results if isinstance(r, WriteOutcome)]
    assert [r.ids for r in written] == [["w0"], ["w1"], ["w3"]]
    assert stored_entry(memory, "ns:w2") is None
    assert stores.ledger.states == {"ns:w0": "synced", "ns:w1": "synced", "ns:w3": "synced"}
    assert set(stores.keywords.entries) == {"ns:w0", "ns:w1", "ns:w3"}
