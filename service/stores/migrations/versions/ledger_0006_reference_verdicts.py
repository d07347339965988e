"""Reference questions found by their words: the question as every question of the same
words is asked, indexed, so a retrieve finds the verdict a team gave.

Revision ID: ledger_0006_reference_verdicts
Revises: ledger_0005_references
"""

import sqlalchemy as sa
from alembic import op

from service.domain.model.references import asked_as

revision = "ledger_0006_reference_verdicts"
down_revision = "ledger_0005_references"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("reference_questions") as batch:
        batch.add_column(sa.Column("asked", sa.Text(), nullable=False, server_default=""))
    table = sa.table(
        "reference_questions",
        sa.column("namespace", sa.Text()),
        sa.column("id", sa.Text()),
        sa.column("question", sa.Text()),
        sa.column("asked", sa.Text()),
    )
    conn = op.get_bind()
    rows = conn.execute(sa.select(table.c.namespace, table.c.id, table.c.question)).all()
    for namespace, id_, question in rows:
        conn.execute(
            table.update()
            .where(table.c.namespace == namespace, table.c.id == id_)
            .values(asked=asked_as(question))
        )
    op.create_index("reference_questions_asked", "reference_questions", ["namespace", "asked"])


def downgrade() -> None:
    op.drop_index("reference_questions_asked", table_name="reference_questions")
    with op.batch_alter_table("reference_questions") as batch:
        batch.drop_column("asked")
