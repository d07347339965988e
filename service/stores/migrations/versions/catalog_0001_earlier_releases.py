"""The catalog as the releases before these migrations left it, completed: the text of each
file (NULL for those indexed before it was kept) where it is missing.

Revision ID: catalog_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "catalog_0001"
down_revision = None
branch_labels = ("catalog",)
depends_on = None


def upgrade() -> None:
    op.execute("DROP TABLE IF EXISTS schema_version")
    present = {column["name"] for column in sa.inspect(op.get_bind()).get_columns("files")}
    if "text" not in present:
        op.add_column("files", sa.Column("text", sa.Text()))
