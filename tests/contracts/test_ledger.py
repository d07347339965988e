"""The ledger's contract: FakeLedger, SqliteLedger and PostgresLedger (the change log's
is in test_change_log.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from service.domain.entries import Chunk, Quarantined, StoredEntry, Supersession, Tier
from service.domain.model import StoredCounts
from service.domain.ports import Ledger
from tests.fakes import T0, FakeLedger, make_entry
from tests.postgres import POSTGRES
from tests.stores import durable_opener


@pytest.fixture(params=["fake", "sqlite", POSTGRES])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Ledger:
    if request.param == "fake":
        return FakeLedger()
    return durable_opener(request, tmp_path)().ledger


def stored(id: str, tier: Tier = "A", tokens: int = 0, **fields: Any) -> StoredEntry:
    """An entry of two chunks, with vectors unless it is of tier E; of tier C, it expires
    at T0 + 10."""
    if tier == "C":
        fields = {"expires_at": T0 + 10, **fields}
    e = make_entry(
        id, f"text {id}", tier, speaker="ann", tags=("x", "y"), metadata={"n": 1}, **fields
    )
    vector = (0.5, -0.25) if tier != "E" else None
    return StoredEntry(
        e, (Chunk(e.key, 0, e.text, vector), Chunk(e.key, 1, "more", vector)), tokens
    )


def keys(entries: list[StoredEntry]) -> set[str]:
    return {s.entry.key for s in entries}


def test_an_entry_reads_back_as_written(ledger: Ledger) -> None:
    item = stored("1", thread="t", context="before", kind="pattern", variants=("a", "b"))
    ledger.put([item])
    assert ledger.get(["ns:1", "ns:missing"]) == {"ns:1": item}
    assert ledger.count() == {"A": 1}


def test_states_drive_recovery(ledger: Ledger) -> None:
    ledger.put([stored("1"), stored("2", "E"), stored("3", "C")])
    ledger.mark_synced(["ns:2", "ns:missing"])
    assert ledger.mark_deleting(["ns:3", "ns:missing"]) == ["ns:3"]
    pending, deleting = ledger.unsynced()
    assert keys(pending) == {"ns:1"}
    assert deleting == ["ns:3"]
    assert "ns:3" not in ledger.get(["ns:3"])
    assert ledger.count() == {"A": 1, "E": 1}
    ledger.remove(["ns:3"])
    assert ledger.unsynced()[1] == []


def test_writing_an_entry_being_deleted_brings_it_back_as_pending(ledger: Ledger) -> None:
    ledger.put([stored("1")])
    ledger.mark_synced(["ns:1"])
    ledger.mark_deleting(["ns:1"])
    ledger.put([stored("1")])
    assert keys(ledger.unsynced()[0]) == {"ns:1"}
    assert ledger.unsynced()[1] == []
    assert "ns:1" in ledger.get(["ns:1"])


def test_a_write_names_the_keys_whose_earlier_vectors_may_remain(ledger: Ledger) -> None:
    written = [stored("a"), stored("e", "E"), stored("c", "C", archived=True)]
    assert ledger.put(written) == []  # new keys: nothing of them in the vector index
    # Pending: what their indexing reached is not known.
    assert ledger.put(written) == ["ns:a", "ns:e", "ns:c"]
    ledger.mark_synced(["ns:a", "ns:e", "ns:c"])
    # Synced: only a live entry of tier A or C has vectors there.
    assert ledger.put([stored("a", "E"), stored("e", "E"), stored("c", "C")]) == ["ns:a"]
    ledger.mark_synced(["ns:a", "ns:e", "ns:c"])
    assert ledger.put([stored("a"), stored("a"), stored("e", "E")]) == []
    ledger.mark_synced(["ns:a", "ns:e"])
    ledger.mark_deleting(["ns:e"])
    ledger.quarantine({"ns:a": "boom"}, at=T0)
    # Being deleted or set aside: their indexing is unfinished too.
    assert ledger.put([stored("a", "E"), stored("e", "E")]) == ["ns:a", "ns:e"]


def test_replacing_a_key_replaces_its_chunks(ledger: Ledger) -> None:
    ledger.put([stored("1")])
    e = stored("1", "E")
    single = StoredEntry(e.entry, e.chunks[:1])
    ledger.put([single])
    assert ledger.get(["ns:1"])["ns:1"] == single


def test_scan_visits_every_live_entry_once_in_key_order(ledger: Ledger) -> None:
    ledger.put([stored(f"{n:02}") for n in range(25)])
    ledger.mark_deleting(["ns:07"])
    batches = list(ledger.scan(batch=4))
    assert [len(b) for b in batches] == [4] * 6
    scanned = [s.entry.key for batch in batches for s in batch]
    assert scanned == sorted(f"ns:{n:02}" for n in range(25) if n != 7)


def test_select_keys_for_the_lifecycle_jobs(ledger: Ledger) -> None:
    ledger.put(
        [
            stored("a", "C"),
            stored("b", "A"),
            stored("e", "E"),
            stored("old", "E", archived=True),
            stored("gone", "E"),
        ]
    )
    ledger.mark_deleting(["ns:gone"])
    assert ledger.select_keys(tier="C", expires_before=T0) == []
    assert ledger.select_keys(tier="C", expires_before=T0 + 60) == ["ns:a"]
    assert ledger.select_keys(tier="E", older_than=T0 + 1) == ["ns:e"]
    assert ledger.select_keys(tier="E", older_than=T0 - 60) == []
    assert ledger.select_keys(tier="E", archived=True) == ["ns:old"]
    assert ledger.select_keys(tier="A", expires_before=T0 + 60) == []


def test_select_keys_can_leave_out_a_kind(ledger: Ledger) -> None:
    ledger.put([stored("log", "E"), stored("sum", "E", kind="digest", timestamp=T0 - 1)])
    assert ledger.select_keys(tier="E") == ["ns:sum", "ns:log"]
    assert ledger.select_keys(tier="E", exclude_kind="digest") == ["ns:log"]
    assert ledger.select_keys(tier="E", exclude_kind="pattern") == ["ns:sum", "ns:log"]


def test_dated_lists_one_namespace_and_tier_in_a_time_range(ledger: Ledger) -> None:
    ledger.put(
        [
            stored("late", "E", archived=True, timestamp=T0 + 50),
            stored("early", "E", archived=True, timestamp=T0 + 10),
            stored("edge", "E", archived=True, timestamp=T0 + 100),
            stored("before", "E", archived=True, timestamp=T0 - 1),
            stored("live", "E", timestamp=T0 + 20),
            stored("decision", "A", archived=True, timestamp=T0 + 20),
            stored("elsewhere", "E", archived=True, timestamp=T0 + 20, namespace="other"),
            stored("gone", "E", archived=True, timestamp=T0 + 30),
        ]
    )
    ledger.mark_deleting(["ns:gone"])
    found = ledger.dated("ns", "E", T0, T0 + 100, archived=True)
    assert [e.id for e in found] == ["early", "late"]
    assert found[0] == stored("early", "E", archived=True, timestamp=T0 + 10).entry
    assert [e.id for e in ledger.dated("ns", "E", T0, T0 + 100, archived=False)] == ["live"]
    assert [e.id for e in ledger.dated("other", "E", T0, T0 + 100, archived=True)] == ["elsewhere"]


def test_select_keys_stops_at_the_limit(ledger: Ledger) -> None:
    ledger.put([stored(str(n), "E") for n in range(5)])
    assert len(ledger.select_keys(tier="E", limit=3)) == 3


def test_history_outlives_the_entry(ledger: Ledger) -> None:
    ledger.put([stored("1")], actor="key:1", at=10.0)
    ledger.put([stored("1")], actor="key:2", at=20.0)
    ledger.put([stored("1")], actor="scheduler", action="archived", at=30.0)
    ledger.remove(["ns:1"], actor="key:1", at=40.0)
    assert [(h.at, h.action, h.actor) for h in ledger.history("ns:1")] == [
        (10.0, "created", "key:1"),
        (20.0, "updated", "key:2"),
        (30.0, "archived", "scheduler"),
        (40.0, "deleted", "key:1"),
    ]
    assert ledger.history("ns:never") == []


def test_stats_count_vectors_and_tokens(ledger: Ledger) -> None:
    ledger.put(
        [
            stored("a", tokens=30),
            stored("e", "E", tokens=70),
            stored("old", "A", tokens=5, archived=True),
            stored("gone", "A", tokens=9),
        ]
    )
    ledger.mark_deleting(["ns:gone"])
    assert sorted(ledger.stats(), key=lambda c: (c.namespace, c.tier, c.archived)) == [
        StoredCounts("ns", "A", False, entries=1, vectors=2, tokens_embedded=30, tokens=30),
        StoredCounts("ns", "A", True, entries=1, vectors=2, tokens_embedded=5, tokens=5),
        StoredCounts("ns", "E", False, entries=1, vectors=0, tokens_embedded=0, tokens=70),
    ]
    assert ledger.vector_count() == 2  # live A and C chunks only
    assert ledger.missing_vectors() == []


def test_missing_vectors_are_of_embedded_tiers_only(ledger: Ledger) -> None:
    a, c = stored("a"), stored("c", "C")
    ledger.put(
        [
            StoredEntry(a.entry, (a.chunks[0], Chunk("ns:a", 1, "more"))),
            StoredEntry(c.entry, tuple(Chunk("ns:c", n, "t") for n in range(2))),
            stored("e", "E"),
            StoredEntry(stored("gone").entry, (Chunk("ns:gone", 0, "t"),)),
        ]
    )
    ledger.mark_deleting(["ns:gone"])
    assert sorted(ledger.missing_vectors()) == ["ns:a", "ns:c"]
    assert len(ledger.missing_vectors(limit=1)) == 1


def test_vectors_are_read_alone_for_entries_that_have_them(ledger: Ledger) -> None:
    a = stored("a")
    half = StoredEntry(
        stored("half").entry,
        (Chunk("ns:half", 0, "t", (0.5, -0.25)), Chunk("ns:half", 1, "more")),
    )
    ledger.put([a, stored("e", "E"), half])
    found = ledger.vectors(["ns:a", "ns:e", "ns:half", "ns:missing"])
    assert {key: matrix.tolist() for key, matrix in found.items()} == {
        "ns:a": [[0.5, -0.25], [0.5, -0.25]],
        "ns:half": [[0.5, -0.25]],
    }
    assert ledger.vectors([]) == {}


def test_vectors_are_one_single_precision_matrix_per_entry(ledger: Ledger) -> None:
    e = make_entry("a", "text")
    vectors = [(0.1, 0.2, 0.3), (0.4, 0.5, 0.6)]
    ledger.put([StoredEntry(e, tuple(Chunk(e.key, n, "t", v) for n, v in enumerate(vectors)))])
    matrix = ledger.vectors(["ns:a"])["ns:a"]
    assert isinstance(matrix, np.ndarray)
    assert matrix.dtype == np.dtype(np.float32)
    assert matrix.shape == (2, 3)
    assert matrix[1].tolist() == pytest.approx((0.4, 0.5, 0.6), rel=1e-6)


def test_vectors_of_another_size_than_an_entrys_first_are_left_out(ledger: Ledger) -> None:
    e = make_entry("a", "text")
    sizes = [(1.0, 0.0), (0.0, 1.0, 0.0), (0.0, 1.0)]
    ledger.put([StoredEntry(e, tuple(Chunk(e.key, n, "t", v) for n, v in enumerate(sizes)))])
    assert ledger.vectors(["ns:a"])["ns:a"].tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_passages_are_live_entries_with_their_chunk_texts_in_order(ledger: Ledger) -> None:
    a, e, gone = stored("a", thread="t"), stored("e", "E"), stored("gone")
    bare = StoredEntry(make_entry("bare", "no chunks"), ())
    ledger.put([a, e, gone, bare])
    ledger.mark_deleting(["ns:gone"])
    assert ledger.passages(["ns:e", "ns:a", "ns:gone", "ns:bare", "ns:missing"]) == {
        "ns:a": (a.entry, ("text a", "more")),
        "ns:e": (e.entry, ("text e", "more")),
        "ns:bare": (bare.entry, ()),
    }
    assert ledger.passages([]) == {}
    many = make_entry("many", "twelve chunks, given last first")
    ledger.put(
        [StoredEntry(many, tuple(Chunk(many.key, n, f"c{n}", None) for n in range(11, -1, -1)))]
    )
    assert ledger.passages(["ns:many"])["ns:many"][1] == tuple(f"c{n}" for n in range(12))


def test_the_last_entry_of_a_thread_is_the_one_written_last(ledger: Ledger) -> None:
    ledger.put([stored("1", thread="t"), stored("2", thread="t"), stored("x", thread="other")])
    ledger.put([stored("3", thread="t", namespace="elsewhere")])
    assert ledger.last_in_thread("ns", "t") == stored("2", thread="t").entry
    ledger.put([stored("1", thread="t")])  # rewritten: now the latest
    assert ledger.last_in_thread("ns", "t") == stored("1", thread="t").entry
    ledger.mark_deleting(["ns:1"])
    assert ledger.last_in_thread("ns", "t") == stored("2", thread="t").entry
    assert ledger.last_in_thread("ns", "none") is None


def test_any_number_of_keys_is_read_and_flagged(ledger: Ledger) -> None:
    """More keys than one SQLite statement binds."""
    many = [stored(f"{n:04}") for n in range(1200)]
    ledger.put(many)
    wanted = [s.entry.key for s in many]
    assert len(ledger.get(wanted)) == 1200
    assert len(ledger.passages(wanted)) == 1200
    assert len(ledger.vectors(wanted)) == 1200
    assert ledger.mark_deleting([*wanted[:1100], "ns:missing"]) == wanted[:1100]
    assert ledger.count() == {"A": 100}


def test_a_quarantined_entry_leaves_every_read_until_written_again(ledger: Ledger) -> None:
    ledger.put([stored("1"), stored("2", "E"), stored("3", "C")])
    ledger.mark_synced(["ns:1", "ns:3"])
    ledger.quarantine({"ns:2": "cannot be indexed: boom", "ns:missing": "x"}, at=T0)
    assert ledger.quarantined() == [Quarantined("ns:2", "cannot be indexed: boom", T0)]
    assert ledger.get(["ns:2"]) == {}
    assert ledger.passages(["ns:2"]) == {}
    assert ledger.unsynced() == ([], [])
    assert ledger.count() == {"A": 1, "C": 1}
    assert "ns:2" not in {s.entry.key for batch in ledger.scan() for s in batch}
    assert ledger.select_keys(tier="E") == []
    ledger.put([stored("2", "E")])
    assert ledger.quarantined() == []
    assert keys(ledger.unsynced()[0]) == {"ns:2"}


def test_a_quarantined_entry_can_be_deleted(ledger: Ledger) -> None:
    ledger.put([stored("1")])
    ledger.quarantine({"ns:1": "boom"}, at=T0)
    assert ledger.mark_deleting(["ns:1"]) == ["ns:1"]
    ledger.remove(["ns:1"])
    assert ledger.quarantined() == [] and ledger.count() == {}


# -- supersession, histories read together, repeats


def test_a_write_supersedes_entries_in_its_transaction(ledger: Ledger) -> None:
    ledger.put([stored("old")], at=T0)
    seen = ledger.change_bounds().latest
    ledger.put([stored("new")], actor="ann", at=T0 + 5, supersedes=[("ns:old", "ns:new")])

    assert ledger.get(["ns:old"])["ns:old"].entry.superseded_by == "new"
    assert ledger.passages(["ns:old"])["ns:old"][0].superseded_by == "new"
    assert ledger.get(["ns:new"])["ns:new"].entry.superseded_by is None
    assert ledger.supersessions(["ns:new"]) == [Supersession("ns:old", "ns:new", T0 + 5, "ann")]
    assert ledger.supersessions(["ns:old"]) == ledger.supersessions(["ns:new"])
    last = ledger.history("ns:old")[-1]
    assert (last.at, last.action, last.actor, last.detail) == (T0 + 5, "superseded", "ann", "new")
    # Replicas follow it: the older entry's change is logged with the newer's.
    assert {c.key for c in ledger.changes(seen)} == {"ns:old", "ns:new"}


def test_rewriting_a_superseded_entry_keeps_it_superseded(ledger: Ledger) -> None:
    ledger.put([stored("old"), stored("new")])
    ledger.put([stored("new")], supersedes=[("ns:old", "ns:new")])
    ledger.put([ledger.get(["ns:old"])["ns:old"]], action="archived")
    ledger.put([stored("old", tokens=7)])
    assert ledger.get(["ns:old"])["ns:old"].entry.superseded_by == "new"


def test_deleting_the_newer_entry_reinstates_the_older(ledger: Ledger) -> None:
    ledger.put([stored("old"), stored("new")], at=T0)
    ledger.put([stored("new")], at=T0 + 1, supersedes=[("ns:old", "ns:new")])
    seen = ledger.change_bounds().latest
    ledger.mark_deleting(["ns:new"])
    ledger.remove(["ns:new"], actor="bob", at=T0 + 2)

    assert ledger.get(["ns:old"])["ns:old"].entry.superseded_by is None
    assert ledger.supersessions(["ns:old"]) == []
    last = ledger.history("ns:old")[-1]
    assert (last.at, last.action, last.actor, last.detail) == (T0 + 2, "reinstated", "bob", "new")
    assert "ns:old" in {c.key for c in ledger.changes(seen)}


def test_an_entry_replaced_twice_stays_replaced_until_both_are_deleted(ledger: Ledger) -> None:
    ledger.put([stored("v1"), stored("v2"), stored("v3")], at=T0)
    ledger.put([stored("v2")], at=T0 + 1, supersedes=[("ns:v1", "ns:v2")])
    ledger.put([stored("v3")], at=T0 + 2, supersedes=[("ns:v1", "ns:v3"), ("ns:v2", "ns:v3")])
    assert ledger.get(["ns:v1"])["ns:v1"].entry.superseded_by == "v3"

    ledger.remove(["ns:v3"], at=T0 + 3)
    assert ledger.get(["ns:v1"])["ns:v1"].entry.superseded_by == "v2"
    assert ledger.get(["ns:v2"])["ns:v2"].entry.superseded_by is None
    assert [h.action for h in ledger.history("ns:v1")][-1] == "superseded"
    assert [h.action for h in ledger.history("ns:v2")][-1] == "reinstated"


def test_deleting_the_older_entry_drops_the_relation(ledger: Ledger) -> None:
    ledger.put([stored("old"), stored("new")])
    ledger.put([stored("new")], supersedes=[("ns:old", "ns:new")])
    ledger.remove(["ns:old"])
    assert ledger.supersessions(["ns:new"]) == []
    assert ledger.get(["ns:new"])["ns:new"].entry.superseded_by is None


def test_histories_are_read_together(ledger: Ledger) -> None:
    ledger.put([stored("1"), stored("2")], actor="ann", at=T0)
    ledger.put([stored("1")], actor="bob", at=T0 + 1)
    found = ledger.histories(["ns:1", "ns:2", "ns:none"])
    assert set(found) == {"ns:1", "ns:2"}
    assert [(h.action, h.actor) for h in found["ns:1"]] == [("created", "ann"), ("updated", "bob")]
    assert found["ns:1"] == ledger.history("ns:1")
    assert ledger.histories([]) == {}


def test_a_repeat_is_found_by_normalised_text_tier_speaker_and_namespace(ledger: Ledger) -> None:
    first = stored("1")
    ledger.put([first])
    e = first.entry
    same = replace(e, id="2", text=f"  {e.text.upper()}\n")
    assert ledger.duplicates([same]) == {"ns:2": "1"}
    assert ledger.duplicates([e]) == {}  # its own key is no repeat
    others = [
        replace(e, id="3", tier="C"),
        replace(e, id="4", speaker="bob"),
        replace(e, id="5", namespace="other"),
        replace(e, id="6", text="text 1 and more"),
    ]
    assert ledger.duplicates(others) == {}
    ledger.mark_deleting(["ns:1"])
    assert ledger.duplicates([same]) == {}


def test_the_entries_superseded_in_a_span_are_listed_by_namespace(ledger: Ledger) -> None:
    ledger.put([stored("a"), stored("b"), stored("c"), stored("x", namespace="ns2")], at=T0)
    ledger.put([stored("b")], actor="ann", at=T0 + 10, supersedes=[("ns:a", "ns:b")])
    ledger.put([stored("c")], actor="bob", at=T0 + 20, supersedes=[("ns:b", "ns:c")])
    ledger.put([stored("y", namespace="ns2")], at=T0 + 15, supersedes=[("ns2:x", "ns2:y")])
    found = ledger.superseded_between("ns", T0 + 5, T0 + 30)
    assert [(k, e.at, e.actor, e.detail) for k, e in found] == [
        ("ns:a", T0 + 10, "ann", "b"),
        ("ns:b", T0 + 20, "bob", "c"),
    ]
    assert [k for k, _ in ledger.superseded_between("ns", T0 + 5, T0 + 20)] == ["ns:a"]
    assert ledger.superseded_between("ns", T0 + 5, T0 + 30, limit=1)[0][0] == "ns:a"
