"""The ledger's tables, and the columns added to them since the first release."""

from __future__ import annotations

import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY,
    id TEXT NOT NULL,
    namespace TEXT NOT NULL,
    tier TEXT NOT NULL,
    text TEXT NOT NULL,
    speaker TEXT,
    role TEXT,
    chain_type TEXT,
    tags TEXT NOT NULL,
    timestamp REAL NOT NULL,
    expires_at REAL,
    metadata TEXT NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0,
    tokens INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL,
    kind TEXT NOT NULL DEFAULT 'memory',
    type TEXT,
    confidence REAL,
    variants TEXT NOT NULL DEFAULT '[]',
    thread TEXT,
    context TEXT
);
CREATE INDEX IF NOT EXISTS entries_tier_time ON entries(tier, archived, timestamp);
CREATE INDEX IF NOT EXISTS entries_state ON entries(state) WHERE state != 'synced';
CREATE INDEX IF NOT EXISTS entries_expiry ON entries(expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS chunks (
    key TEXT NOT NULL REFERENCES entries(key) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    text TEXT NOT NULL,
    vector BLOB,
    PRIMARY KEY (key, number)
);
CREATE TABLE IF NOT EXISTS history (
    key TEXT NOT NULL,
    at REAL NOT NULL,
    action TEXT NOT NULL,
    actor TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS history_key ON history(key, at);
CREATE TABLE IF NOT EXISTS quarantine (
    key TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    at REAL NOT NULL
);
"""

LIVE = "state IN ('pending', 'synced')"
"""Entries every read sees: not being deleted, not set aside."""

# The columns an entry is written to and read from.
# fmt: off
_FIELDS = (
    "key", "id", "namespace", "tier", "text", "speaker", "role", "chain_type", "tags",
    "timestamp", "expires_at", "metadata", "archived", "kind", "type", "confidence",
    "variants", "thread", "context", "tokens",
)
# fmt: on
_COLUMNS = ", ".join(_FIELDS)
_VALUES = ", ".join(f":{name}" for name in _FIELDS)

ADDED_COLUMNS = {
    "kind": "TEXT NOT NULL DEFAULT 'memory'",
    "type": "TEXT",
    "confidence": "REAL",
    "variants": "TEXT NOT NULL DEFAULT '[]'",
    "thread": "TEXT",
    "context": "TEXT",
}
"""Columns added after the first release: a ledger written before gets them at open."""


def add_missing_columns(db: sqlite3.Connection) -> None:
    present = {row["name"] for row in db.execute("PRAGMA table_info(entries)")}
    for name, declaration in ADDED_COLUMNS.items():
        if name not in present:
            db.execute(f"ALTER TABLE entries ADD COLUMN {name} {declaration}")
    db.execute(
        "CREATE INDEX IF NOT EXISTS entries_thread ON entries(namespace, thread) "
        "WHERE thread IS NOT NULL"
    )
