"""A namespace's export, import and erasure as the stores serve them: the ledger's
``NamespaceEntries``, the catalog's ``NamespaceCatalog`` and the interaction log's
``NamespaceInteractions``, for the fakes, SQLite and Postgres alike."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from service.domain.entries import Chunk, ExportedEntry, HistoryEvent, StoredEntry, Supersession
from service.domain.model import Collection, Feedback, IndexedFile, Interaction, InteractionResult
from service.domain.ports import Catalog, InteractionLog, Ledger
from tests.fakes import T0, FakeCatalog, FakeInteractionLog, FakeLedger, make_entry
from tests.postgres import POSTGRES
from tests.stores import durable_opener


@dataclass
class Stores:
    ledger: Ledger
    catalog: Catalog
    interactions: InteractionLog


@pytest.fixture(params=["fake", "sqlite", POSTGRES])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Stores:
    if request.param == "fake":
        return Stores(FakeLedger(), FakeCatalog(), FakeInteractionLog())
    durable = durable_opener(request, tmp_path)()
    return Stores(durable.ledger, durable.catalog, durable.interactions)


def archived(id: str, namespace: str = "ns", *events: str) -> ExportedEntry:
    e = make_entry(id, f"text {id}", "A", namespace, tags=("t",), metadata={"n": 1})
    chunks = (Chunk(e.key, 0, e.text, (0.5, -0.25)), Chunk(e.key, 1, "more", (0.25, 0.5)))
    history = tuple(HistoryEvent(T0 + n, action, "ann") for n, action in enumerate(events))
    return ExportedEntry(StoredEntry(e, chunks, 7), history or (HistoryEvent(T0, "created", "a"),))


def test_restored_entries_read_back_whole_with_their_history(stores: Stores) -> None:
    ledger = stores.ledger
    ledger.put([archived("1").stored], actor="bob", at=T0 - 5)
    items = [archived("1", "ns", "created", "promoted"), archived("2")]
    ledger.restore(items)
    assert ledger.get(["ns:1", "ns:2"]) == {i.stored.entry.key: i.stored for i in items}
    assert ledger.history("ns:1") == list(items[0].history)  # what it had is replaced
    assert ledger.histories(["ns:1", "ns:2", "ns:x"]) == {
        "ns:1": list(items[0].history),
        "ns:2": list(items[1].history),
    }
    pending, _ = ledger.unsynced()
    assert {s.entry.key for s in pending} == {"ns:1", "ns:2"}
    assert {c.key for c in ledger.changes(0)} >= {"ns:1", "ns:2"}


def test_supersessions_are_restored_whichever_entry_comes_first(stores: Stores) -> None:
    ledger = stores.ledger
    newer = archived("new", "ns", "created")
    newer = ExportedEntry(
        newer.stored, newer.history, (Supersession("ns:old", "ns:new", T0 + 1, "ann"),)
    )
    older = archived("old", "ns", "created", "superseded")
    ledger.restore([newer])  # before the entry it replaced, as an import may
    ledger.restore([older])
    (old,) = ledger.get(["ns:old"]).values()
    assert old.entry.superseded_by == "new"
    assert ledger.supersessions(["ns:old"]) == [Supersession("ns:old", "ns:new", T0 + 1, "ann")]
    page = {i.stored.entry.id: i for i in ledger.entry_page("ns", "", 10)}
    assert page["new"].supersedes == newer.supersedes
    assert page["old"].supersedes == ()
    # Restoring the newer entry again, replacing nothing now, frees the older one.
    ledger.restore([archived("new", "ns", "created")])
    (old,) = ledger.get(["ns:old"]).values()
    assert old.entry.superseded_by is None and ledger.supersessions(["ns:old"]) == []


def test_entry_pages_hold_one_namespace_in_id_order(stores: Stores) -> None:
    ledger = stores.ledger
    ledger.restore([archived(f"{n:02}") for n in range(7)])
    ledger.restore([archived("a", "n"), archived("b", "ns2"), archived("c", "nt")])
    ledger.mark_deleting(["ns:03"])
    first = ledger.entry_page("ns", "", 4)
    assert [i.stored.entry.id for i in first] == ["00", "01", "02", "04"]
    assert first[0] == archived("00")
    rest = ledger.entry_page("ns", "04", 4)
    assert [i.stored.entry.id for i in rest] == ["05", "06"]
    assert ledger.entry_page("ns", "06", 4) == []
    assert [i.stored.entry.id for i in ledger.entry_page("n", "", 9)] == ["a"]


def test_an_erasure_removes_the_namespace_and_leaves_its_record(stores: Stores) -> None:
    ledger = stores.ledger
    ledger.restore([archived("1", "ns", "created", "updated"), archived("2")])
    ledger.restore([archived("1", "ns2"), archived("1", "n")])
    ledger.quarantine({"ns:2": "bad"}, at=T0)
    ledger.put([archived("3").stored])
    ledger.remove(["ns:3"])  # history of a removed entry goes too
    before = ledger.change_bounds().latest
    erasure = ledger.erase("ns", actor="admin", at=T0 + 9, counted={"interactions": 4})
    assert erasure.namespace == "ns" and erasure.actor == "admin" and erasure.at == T0 + 9
    assert erasure.counts == {
        "entries": 2,
        "history": 5,
        "quarantined": 1,
        "changes": 5,
        "references": 0,
        "interactions": 4,
    }
    assert ledger.entry_page("ns", "", 10) == []
    assert ledger.history("ns:1") == [] and ledger.history("ns:3") == []
    assert ledger.quarantined() == []
    assert [i.stored.entry.namespace for i in ledger.entry_page("ns2", "", 9)] == ["ns2"]
    assert ledger.history("ns2:1") != []
    assert len(ledger.entry_page("n", "", 9)) == 1
    logged = ledger.changes(0)
    assert [c.key for c in logged if c.key.startswith("ns:")] == ["ns:"]
    assert logged[-1].key == "ns:" and logged[-1].seq > before
    assert ledger.erasures() == [erasure]
    again = ledger.erase("ns", actor="admin", at=T0 + 10, counted={})
    assert again.counts["entries"] == 0
    assert ledger.erasures() == [again, erasure]
    other = ledger.erase("ns2", actor="admin", at=T0 + 20, counted={})
    assert ledger.erasures(frozenset({"ns"})) == [again, erasure]
    assert ledger.erasures(frozenset({"ns2", "elsewhere"})) == [other]
    assert ledger.erasures(frozenset({"ns", "ns2"}), limit=2) == [other, again]
    assert ledger.erasures(frozenset({"elsewhere"})) == []


def collection(name: str, namespace: str = "ns") -> Collection:
    return Collection(f"id-{name}", name, namespace, f"/srv/{name}", "**/*.md", "A", T0, T0 + 1)


def test_collections_are_restored_paged_and_erased(stores: Stores) -> None:
    catalog = stores.catalog
    catalog.restore(collection("notes"))
    catalog.restore(collection("notes"))  # the same again: replaced
    catalog.add(collection("other", "ns2"))
    for path in ("c.md", "a.md", "b.md"):
        catalog.set_file("id-notes", IndexedFile(path, f"h-{path}", 2), f"text of {path}")
    catalog.set_file("id-other", IndexedFile("a.md", "h", 1), "theirs")
    first = catalog.file_page("id-notes", "", 2)
    assert first == [
        (IndexedFile("a.md", "h-a.md", 2), "text of a.md"),
        (IndexedFile("b.md", "h-b.md", 2), "text of b.md"),
    ]
    assert [f.path for f, _ in catalog.file_page("id-notes", "b.md", 2)] == ["c.md"]
    moved = Collection("id-notes", "notes", "ns", "/srv/moved", "*.md", "A", T0, None)
    catalog.restore(moved)
    assert catalog.get("ns", "notes") == moved
    assert catalog.erase("ns") == (1, 3)
    assert catalog.get("ns", "notes") is None and catalog.file_page("id-notes", "", 9) == []
    assert catalog.get("ns2", "other") == collection("other", "ns2")
    assert catalog.file("id-other", "a.md") == IndexedFile("a.md", "h", 1)


def asked(id: str, namespace: str = "ns", at: float = T0) -> Interaction:
    return Interaction(
        id, at, namespace, "bot", f"q {id}?", [InteractionResult("a", 0.5, 0.25)], True, 0.5, 3.0
    )


def test_interactions_are_paged_restored_once_and_erased(stores: Stores) -> None:
    log = stores.interactions
    for n in range(3):
        log.record(asked(f"i{n}", at=T0 + 10 - n))  # logged in an order other than time
    log.record(asked("x", "ns2"))
    up = Feedback("i1", T0 + 20, "up", None, "ann")
    down = Feedback("i0", T0 + 21, "down", "wrong", "bob")
    log.add_feedback(up)
    log.add_feedback(Feedback("x", T0, "up", None, "ann"))
    log.add_feedback(down)
    page = log.interaction_page("ns", 0, 2)
    assert [i.id for _, i in page] == ["i0", "i1"]
    assert [i.id for _, i in log.interaction_page("ns", page[-1][0], 2)] == ["i2"]
    given = log.feedback_page("ns", 0, 10)
    assert [f for _, f in given] == [up, down]
    assert log.feedback_page("ns", given[0][0], 10)[0][1] == down
    assert log.counted("ns") == (3, 2)
    # Restoring what is there adds nothing; what is not, in order.
    fresh = Feedback("new", T0, "up", "ok", "c")
    assert log.restore([asked("i0"), asked("new")], [up, fresh]) == 2
    assert log.get("new") == asked("new")
    assert log.counted("ns") == (4, 3)
    assert log.erase("ns") == (4, 3)
    assert log.interaction_page("ns", 0, 10) == [] and log.get("i0") is None
    assert log.counted("ns2") == (1, 1)
