"""What the SQLite ledger adds to the ledger's contract (tests/contracts/test_ledger.py):
its file on disk."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from service.domain.models import Entry, StoredEntry
from service.stores.ledger import SqliteLedger
from tests.fakes import T0, make_entry


def test_entries_survive_reopening(tmp_path: Path) -> None:
    ledger = SqliteLedger(tmp_path / "l.db")
    item = StoredEntry(make_entry("1", "kept", tags=("x",), metadata={"n": 1}), (), 3)
    ledger.put([item], actor="key:1", at=T0)
    ledger.close()
    again = SqliteLedger(tmp_path / "l.db")
    assert again.get(["ns:1"]) == {"ns:1": item}
    assert again.count() == {"A": 1}
    assert [(h.action, h.actor) for h in again.history("ns:1")] == [("created", "key:1")]


def test_a_ledger_from_before_kinds_and_types_opens_with_its_entries(tmp_path: Path) -> None:
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
