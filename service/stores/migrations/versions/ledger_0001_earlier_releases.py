"""The ledger as the releases before these migrations left it, completed.

Run only on a ledger those releases wrote: a SQLite file from any of them (the columns,
tables and indexes added since the first release are added where missing) or a Postgres
database (already complete).

Revision ID: ledger_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "ledger_0001"
down_revision = None
branch_labels = ("ledger",)
depends_on = None

ADDED_COLUMNS = {
    "kind": "TEXT NOT NULL DEFAULT 'memory'",
    "type": "TEXT",
    "confidence": "REAL",
    "variants": "TEXT NOT NULL DEFAULT '[]'",
    "thread": "TEXT",
    "context": "TEXT",
}
"""Columns the first releases added to a SQLite ledger as they opened it."""

SQLITE_TABLES = [
    "CREATE TABLE IF NOT EXISTS chunks (key TEXT NOT NULL REFERENCES entries(key) "
    "ON DELETE CASCADE, number INTEGER NOT NULL, text TEXT NOT NULL, vector BLOB, "
    "PRIMARY KEY (key, number))",
    "CREATE TABLE IF NOT EXISTS history (key TEXT NOT NULL, at REAL NOT NULL, "
    "action TEXT NOT NULL, actor TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS quarantine (key TEXT PRIMARY KEY, reason TEXT NOT NULL, "
    "at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
    "key TEXT NOT NULL, at REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS changes_at ON changes(at)",
    "CREATE TABLE IF NOT EXISTS change_horizon (one INTEGER PRIMARY KEY CHECK (one = 1), "
    "horizon INTEGER NOT NULL)",
    "INSERT OR IGNORE INTO change_horizon VALUES (1, 0)",
]


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    present = {column["name"] for column in sa.inspect(bind).get_columns("entries")}
    for name, declaration in ADDED_COLUMNS.items():
        if name not in present:
            op.execute(f"ALTER TABLE entries ADD COLUMN {name} {declaration}")
    for statement in SQLITE_TABLES:
        op.execute(statement)
