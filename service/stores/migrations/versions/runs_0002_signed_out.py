"""The console sessions signed out of before they expired.

Revision ID: runs_0002_signed_out
Revises: runs_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "runs_0002_signed_out"
down_revision = "runs_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "signed_out",
        sa.Column(
            "session",
            sa.Text().with_variant(sa.Text(collation="C"), "postgresql"),
            primary_key=True,
        ),
        sa.Column("until", sa.Float(), nullable=False),
    )
    op.create_index("signed_out_until", "signed_out", ["until"])


def downgrade() -> None:
    op.drop_index("signed_out_until", table_name="signed_out")
    op.drop_table("signed_out")
