"""Reference questions and the fits sweeps keep of them.

Revision ID: ledger_0005_references
Revises: ledger_0004_erasures
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "ledger_0005_references"
down_revision = "ledger_0004_erasures"
branch_labels = None
depends_on = None

DOCUMENT = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "reference_questions",
        sa.Column("namespace", sa.Text(), primary_key=True),
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("answers", DOCUMENT, nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
    )
    op.create_table(
        "fits",
        sa.Column("namespace", sa.Text(), primary_key=True),
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("threshold", sa.Float(), nullable=False),
        sa.Column("floor", sa.Float(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("figures", DOCUMENT, nullable=False),
    )
    op.create_table(
        "fits_in_force",
        sa.Column("namespace", sa.Text(), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("fits_in_force")
    op.drop_table("fits")
    op.drop_table("reference_questions")
