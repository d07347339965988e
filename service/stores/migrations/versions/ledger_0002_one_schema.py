"""One schema for both databases: entries numbered as written, history rows numbered.

SQLite ledgers number their entries by their rowid so far, and history rows by theirs:
``written`` and ``history.id`` keep those numbers. Postgres ledgers had both already.

Revision ID: ledger_0002
Revises: ledger_0001
"""

from alembic import op

revision = "ledger_0002"
down_revision = "ledger_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP TABLE IF EXISTS schema_version")
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE entries ADD COLUMN written INTEGER NOT NULL DEFAULT 0")
        op.execute("UPDATE entries SET written = rowid")
        op.execute("DROP INDEX IF EXISTS entries_thread")
        op.execute(
            "CREATE INDEX entries_thread ON entries (namespace, thread, written) "
            "WHERE thread IS NOT NULL"
        )
        op.execute(
            "CREATE TABLE history_numbered (id INTEGER NOT NULL PRIMARY KEY, key TEXT NOT NULL, "
            "at FLOAT NOT NULL, action TEXT NOT NULL, actor TEXT NOT NULL)"
        )
        op.execute(
            "INSERT INTO history_numbered (id, key, at, action, actor) "
            "SELECT rowid, key, at, action, actor FROM history"
        )
        op.execute("DROP TABLE history")
        op.execute("ALTER TABLE history_numbered RENAME TO history")
        op.execute("CREATE INDEX history_key ON history (key, at, id)")
        op.execute("CREATE INDEX entries_written_order ON entries (written)")
