"""The interaction log as the releases before these migrations left it, completed: each
retrieve's ``answer_confidence`` (NULL for those logged before it was kept) where missing.

Revision ID: interactions_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "interactions_0001"
down_revision = None
branch_labels = ("interactions",)
depends_on = None


def upgrade() -> None:
    present = {column["name"] for column in sa.inspect(op.get_bind()).get_columns("interactions")}
    if "answer_confidence" not in present:
        op.add_column("interactions", sa.Column("answer_confidence", sa.Float()))
