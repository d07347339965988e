"""The ledger's contract for supersession, histories read together and repeats: FakeLedger,
SqliteLedger and PostgresLedger (the fixture of test_ledger.py)."""

from __future__ import annotations

from dataclasses import replace

from service.domain.models import Supersession
from service.domain.ports import Ledger
from tests.contracts.test_ledger import ledger, stored  # noqa: F401 (the fixture)
from tests.fakes import T0


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
