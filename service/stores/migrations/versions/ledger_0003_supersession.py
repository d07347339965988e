"""Supersession and repeats: which entry replaced which, a detail on history events, and
each entry's fingerprint (its tier, speaker and normalised text digested), filled in for the
entries written before.

Revision ID: ledger_0003_supersession
Revises: ledger_0002
"""

import sqlalchemy as sa
from alembic import op

from service.domain.entries import Entry

revision = "ledger_0003_supersession"
down_revision = "ledger_0002"
branch_labels = None
depends_on = None

KEY = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")
BATCH = 1000


def upgrade() -> None:
    op.add_column("entries", sa.Column("superseded_by", sa.Text()))
    op.add_column("entries", sa.Column("fingerprint", sa.Text()))
    op.add_column("history", sa.Column("detail", sa.Text()))
    op.create_table(
        "supersessions",
        sa.Column("key", KEY, primary_key=True),
        sa.Column("by_key", KEY, primary_key=True),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
    )
    op.create_index("supersessions_by", "supersessions", ["by_key"])
    _fill_fingerprints()
    op.create_index("entries_fingerprint", "entries", ["namespace", "fingerprint"])


def _fill_fingerprints() -> None:
    conn = op.get_bind()
    read = sa.text(
        "SELECT key, id, namespace, tier, text, speaker FROM entries "
        "WHERE key > :after ORDER BY key LIMIT :limit"
    )
    write = sa.text("UPDATE entries SET fingerprint = :fingerprint WHERE key = :key")
    after = ""
    while rows := conn.execute(read, {"after": after, "limit": BATCH}).all():
        conn.execute(
            write,
            [
                {
                    "key": row.key,
                    "fingerprint": Entry(
                        row.id, row.namespace, row.tier, row.text, 0.0, row.speaker
                    ).fingerprint,
                }
                for row in rows
            ],
        )
        after = rows[-1].key
