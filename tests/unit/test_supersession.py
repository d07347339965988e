"""Supersession, repeats and similar entries on the write path, superseded entries and
``as_of`` on the read path, over fake stores."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from service.domain.entries import HistoryEvent
from service.domain.search.as_of import as_it_was
from service.domain.search.query import SearchQuery
from service.domain.search.searcher import Searcher
from service.errors import InvalidInput
from service.settings import ChunkingSettings
from tests.fakes import FakeStores, fake_memory, make_entry, make_filters
from tests.settings import search_settings

T = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def stores(clock: Clock) -> FakeStores:
    chunking = ChunkingSettings(words=20, overlap=5, similar_threshold=0.5)
    found = fake_memory(chunking, clock=clock)
    found.ledger.clock = clock
    return found


def searcher(stores: FakeStores) -> Searcher:
    return Searcher(
        stores.ledger,
        stores.vectors,
        stores.keywords,
        stores.embedder,
        search_settings(),
        history=stores.ledger,
    )


def ids(stores: FakeStores, text: str, **wanted: Any) -> list[str]:
    filters = replace(make_filters(**wanted), now=T + 10**6)
    outcome = searcher(stores).search(SearchQuery(text, filters))
    return [r.entry.id for r in outcome.results]


DECIDED = "ledger database decision: use sqlite for the ledger"
REVISED = "ledger database decision: use postgres for the ledger, change log partitioned"


def test_a_revision_leaves_the_decision_it_replaces_out_of_searches(stores: FakeStores) -> None:
    stores.memory.writer.write([make_entry("v1", DECIDED)], "ann")
    stores.memory.writer.write([make_entry("v2", REVISED)], "bob", supersedes={"ns:v2": ["v1"]})

    assert ids(stores, "ledger database decision") == ["v2"]
    both = ids(stores, "ledger database decision", include_superseded=True)
    assert set(both) == {"v1", "v2"}
    old = stores.ledger.get(["ns:v1"])["ns:v1"].entry
    assert old.superseded_by == "v2"
    event = stores.ledger.history("ns:v1")[-1]
    assert (event.action, event.actor, event.detail) == ("superseded", "bob", "v2")


def test_explain_names_what_was_left_out_as_superseded(stores: FakeStores) -> None:
    stores.memory.writer.write([make_entry("v1", DECIDED), make_entry("old", DECIDED + " once")])
    stores.memory.writer.write([make_entry("v2", REVISED)], supersedes={"ns:v2": ["v1", "old"]})
    stores.memory.lifecycle.set_archived(["ns:old"], True)
    filters = replace(make_filters(), now=T + 10**6)
    explained = searcher(stores).search(
        SearchQuery("ledger database decision", filters, explain=True)
    )
    # The archived one would be left out anyway: it is not named.
    assert [(e.id, e.superseded_by) for e in explained.superseded] == [("v1", "v2")]
    plain = searcher(stores).search(SearchQuery("ledger database decision", filters))
    assert plain.superseded == ()


def test_unknown_or_foreign_ids_are_refused_by_name_and_nothing_is_written(
    stores: FakeStores,
) -> None:
    stores.memory.writer.write([make_entry("v1", DECIDED, namespace="other")])
    with pytest.raises(InvalidInput) as refused:
        stores.memory.writer.write(
            [make_entry("ok", "fine"), make_entry("v2", REVISED)],
            supersedes={"ns:v2": ["v1", "nope", "v2"]},
        )
    assert [(e.field, e.message) for e in refused.value.errors] == [
        ("entries[1].supersedes[0]", "no entry 'v1' in namespace 'ns'"),
        ("entries[1].supersedes[1]", "no entry 'nope' in namespace 'ns'"),
        ("entries[1].supersedes[2]", "an entry cannot supersede itself"),
    ]
    assert stores.ledger.get(["ns:ok", "ns:v2"]) == {}


def test_deleting_the_revision_brings_the_decision_back(stores: FakeStores) -> None:
    stores.memory.writer.write([make_entry("v1", DECIDED)])
    stores.memory.writer.write([make_entry("v2", REVISED)], supersedes={"ns:v2": ["v1"]})
    stores.memory.lifecycle.delete(["ns:v2"], "ann")
    assert ids(stores, "ledger database decision") == ["v1"]
    assert stores.ledger.history("ns:v1")[-1].action == "reinstated"


def test_a_promoted_discussion_keeps_what_superseded_it(stores: FakeStores) -> None:
    stores.memory.writer.write([make_entry("talk", "maybe sqlite for the ledger?", "C")])
    stores.memory.writer.write([make_entry("v1", DECIDED)], supersedes={"ns:v1": ["talk"]})
    stores.memory.lifecycle.promote(["ns:talk"])
    promoted = stores.ledger.get(["ns:talk"])["ns:talk"].entry
    assert (promoted.tier, promoted.superseded_by) == ("A", "v1")
    assert ids(stores, "sqlite ledger") == ["v1"]


def test_a_repeat_written_without_an_id_is_stored_once(stores: FakeStores) -> None:
    first = stores.memory.writer.write([make_entry("a", "Alice prefers tea", speaker="alice")])
    again = stores.memory.writer.write(
        [
            make_entry("b", "  alice PREFERS tea ", speaker="alice"),
            make_entry("c", "alice prefers tea", speaker="bob"),
            make_entry("d", "alice prefers tea", speaker="bob"),
        ],
        once=["ns:b", "ns:c", "ns:d"],
    )
    assert first.ids == ["a"]
    assert again.ids == ["a", "c", "c"]
    assert again.duplicate_of == {0: "a", 2: "c"}
    assert set(stores.ledger.entries) == {"ns:a", "ns:c"}


def test_an_entry_written_with_its_id_is_stored_even_if_it_repeats(stores: FakeStores) -> None:
    stores.memory.writer.write([make_entry("a", "alice prefers tea")])
    outcome = stores.memory.writer.write([make_entry("b", "alice prefers tea")])
    assert (outcome.ids, outcome.duplicate_of) == (["b"], {})


def test_a_new_decision_names_the_similar_live_ones(stores: FakeStores) -> None:
    stores.memory.writer.write(
        [make_entry("v1", DECIDED), make_entry("far", "lunch menu on friday")]
    )
    outcome = stores.memory.writer.write([make_entry("v2", REVISED)])
    assert [s.id for s in outcome.similar[0]] == ["v1"]
    assert outcome.similar[0][0].tier == "A"
    assert 0.5 <= outcome.similar[0][0].similarity <= 1.0
    # Neither what it supersedes nor what is superseded already is named.
    replaced = stores.memory.writer.write(
        [make_entry("v3", REVISED + " again")], supersedes={"ns:v3": ["v2"]}
    )
    assert {s.id for s in replaced.similar.get(0, [])} == {"v1"}
    stores.memory.writer.write([make_entry("v4", "unrelated")], supersedes={"ns:v4": ["v1"]})
    later = stores.memory.writer.write([make_entry("v5", DECIDED + " later")])
    assert "v1" not in {s.id for s in later.similar.get(0, [])}


def test_similar_needs_no_model_call_beyond_the_write(stores: FakeStores) -> None:
    stores.memory.writer.write([make_entry("v1", DECIDED)])
    calls = len(stores.embedder.calls)
    stores.memory.writer.write([make_entry("v2", REVISED)])
    assert len(stores.embedder.calls) == calls + 1


def test_as_of_answers_with_the_version_current_then(stores: FakeStores, clock: Clock) -> None:
    stores.memory.writer.write([make_entry("v1", DECIDED)])
    clock.now = T + 100
    stores.memory.writer.write([make_entry("v2", REVISED)], supersedes={"ns:v2": ["v1"]})
    clock.now = T + 200
    assert ids(stores, "ledger database decision", as_of=T + 50) == ["v1"]
    assert ids(stores, "ledger database decision", as_of=T + 150) == ["v2"]
    assert ids(stores, "ledger database decision", as_of=T - 1) == []
    assert ids(stores, "ledger database decision") == ["v2"]


def test_as_of_gives_the_tier_an_entry_had_then(stores: FakeStores, clock: Clock) -> None:
    stores.memory.writer.write(
        [make_entry("talk", "the offsite is in lisbon", "C", expires_at=T + 10**6)]
    )
    clock.now = T + 100
    stores.memory.lifecycle.promote(["ns:talk"])
    assert ids(stores, "offsite lisbon", tiers=("C",), as_of=T + 50) == ["talk"]
    assert ids(stores, "offsite lisbon", tiers=("A",), as_of=T + 50) == []
    assert ids(stores, "offsite lisbon", tiers=("A",), as_of=T + 150) == ["talk"]


def test_as_it_was_reads_the_history() -> None:
    entry = make_entry("x", "text", "A", superseded_by="y")
    events = [
        HistoryEvent(10, "created", "ann"),
        HistoryEvent(20, "promoted", "ann"),
        HistoryEvent(30, "archived", "job"),
        HistoryEvent(40, "superseded", "bob", "y"),
        HistoryEvent(50, "reinstated", "bob", "y"),
    ]
    assert as_it_was(entry, events, 5) is None
    at = {t: as_it_was(entry, events, t) for t in (15, 25, 35, 45, 55)}
    assert at[15] == replace(entry, tier="C", superseded_by=None)
    assert at[25] == replace(entry, superseded_by=None)
    assert at[35] == replace(entry, archived=True, superseded_by=None)
    assert at[45] == replace(entry, archived=True)
    assert at[55] == replace(entry, archived=True, superseded_by=None)
    # A row written again after its deletion counts from its last creation.
    recreated = [*events, HistoryEvent(60, "deleted", "ann"), HistoryEvent(70, "created", "ann")]
    assert as_it_was(entry, recreated, 65) is None


def test_a_tier_c_entry_past_its_lifetime_then_counts_as_archived() -> None:
    entry = make_entry("x", "text", "C", expires_at=100.0)
    events = [HistoryEvent(10, "created", "ann")]
    was = as_it_was(entry, events, 150)
    assert was is not None and was.archived
    then = as_it_was(entry, events, 50)
    assert then is not None and not then.archived
