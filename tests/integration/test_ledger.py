"""The SQLite ledger."""

from __future__ import annotations

import time

from service.domain.models import Chunk, Entry, StoredEntry
from service.stores.ledger import SqliteLedger


def stored(id: str, tier: str = "A", namespace: str = "ns") -> StoredEntry:
    e = Entry(
        id=id,
        namespace=namespace,
        tier=tier,
        text=f"text {id}",
        timestamp=time.time(),
        speaker="ann",
        tags=("x", "y"),
        metadata={"n": 1, "s": "v"},
        expires_at=time.time() + 10 if tier == "C" else None,
    )
    vector = (0.5, -0.25) if tier != "E" else None
    return StoredEntry(e, (Chunk(e.key, 0, e.text, vector), Chunk(e.key, 1, "more", vector)))


def test_round_trip_survives_reopen(tmp_path) -> None:
    ledger = SqliteLedger(tmp_path / "l.db")
    item = stored("1")
    ledger.put([item])
    ledger.close()
    again = SqliteLedger(tmp_path / "l.db")
    assert again.get(["ns:1"]) == {"ns:1": item}
    assert again.count() == {"A": 1}


def test_states_drive_recovery(tmp_path) -> None:
    ledger = SqliteLedger(tmp_path / "l.db")
    ledger.put([stored("1"), stored("2", "E"), stored("3", "C")])
    ledger.mark_synced(["ns:2"])
    assert ledger.mark_deleting(["ns:3", "ns:missing"]) == ["ns:3"]
    pending, deleting = ledger.unsynced()
    assert [s.entry.key for s in pending] == ["ns:1"]
    assert deleting == ["ns:3"]
    assert "ns:3" not in ledger.get(["ns:3"])
    ledger.remove(["ns:3"])
    assert ledger.unsynced()[1] == []


def test_replacing_a_key_replaces_its_chunks(tmp_path) -> None:
    ledger = SqliteLedger(tmp_path / "l.db")
    ledger.put([stored("1")])
    e = stored("1", "E")
    single = StoredEntry(e.entry, e.chunks[:1])
    ledger.put([single])
    assert ledger.get(["ns:1"])["ns:1"] == single


def test_scan_visits_every_live_entry_once(tmp_path) -> None:
    ledger = SqliteLedger(tmp_path / "l.db")
    ledger.put([stored(str(n)) for n in range(25)])
    ledger.mark_deleting(["ns:7"])
    keys = [s.entry.key for batch in ledger.scan(batch=4) for s in batch]
    assert len(keys) == len(set(keys)) == 24


def test_select_keys_for_the_lifecycle_jobs(tmp_path) -> None:
    ledger = SqliteLedger(tmp_path / "l.db")
    ledger.put([stored("a", "C"), stored("b", "A"), stored("e", "E")])
    assert ledger.select_keys(tier="C", expires_before=time.time()) == []
    assert ledger.select_keys(tier="C", expires_before=time.time() + 60) == ["ns:a"]
    assert ledger.select_keys(tier="E", older_than=time.time() + 1) == ["ns:e"]
    assert ledger.select_keys(tier="E", older_than=time.time() - 60) == []


def test_history_outlives_the_entry(tmp_path) -> None:
    ledger = SqliteLedger(tmp_path / "l.db")
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


def test_stats_count_vectors_and_tokens(tmp_path) -> None:
    ledger = SqliteLedger(tmp_path / "l.db")
    a, e = stored("a"), stored("e", "E")
    ledger.put([StoredEntry(a.entry, a.chunks, 30), StoredEntry(e.entry, e.chunks, 70)])
    assert sorted(ledger.stats()) == [
        ("ns", "A", False, 1, 2, 30, 30),
        ("ns", "E", False, 1, 0, 0, 70),
    ]
    assert ledger.vector_count() == 2
    assert ledger.missing_vectors() == []


def test_a_ledger_from_before_kinds_and_types_opens_with_its_entries(tmp_path) -> None:
    import sqlite3

    db = sqlite3.connect(tmp_path / "l.db")
    db.executescript(
        "CREATE TABLE entries (key TEXT PRIMARY KEY, id TEXT NOT NULL, namespace TEXT NOT NULL,"
        " tier TEXT NOT NULL, text TEXT NOT NULL, speaker TEXT, role TEXT, chain_type TEXT,"
        " tags TEXT NOT NULL, timestamp REAL NOT NULL, expires_at REAL, metadata TEXT NOT NULL,"
        " archived INTEGER NOT NULL DEFAULT 0, tokens INTEGER NOT NULL DEFAULT 0,"
        " state TEXT NOT NULL);"
        "INSERT INTO entries VALUES ('ns:old', 'old', 'ns', 'A', 'kept', NULL, NULL, NULL,"
        " '[]', 1.0, NULL, '{}', 0, 3, 'synced');"
    )
    db.close()
    ledger = SqliteLedger(tmp_path / "l.db")
    old = ledger.get(["ns:old"])["ns:old"]
    assert (old.entry.text, old.entry.kind, old.entry.type, old.entry.variants) == (
        "kept",
        "memory",
        None,
        (),
    )
    pattern = Entry(
        id="p",
        namespace="ns",
        tier="A",
        text="t",
        timestamp=1.0,
        kind="pattern",
        type="framework",
        confidence=0.7,
        variants=("a", "b"),
    )
    ledger.put([StoredEntry(pattern, ())])
    assert ledger.get(["ns:p"])["ns:p"].entry == pattern


def test_vectors_are_read_alone_for_entries_that_have_them(tmp_path) -> None:
    ledger = SqliteLedger(tmp_path / "l.db")
    ledger.put([stored("a"), stored("e", "E")])
    assert ledger.vectors(["ns:a", "ns:e", "ns:missing"]) == {"ns:a": [(0.5, -0.25), (0.5, -0.25)]}
    assert ledger.vectors([]) == {}
