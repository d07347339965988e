"""The log of job runs as the releases before these migrations left it: already complete.

Revision ID: runs_0001
"""

from alembic import op

revision = "runs_0001"
down_revision = None
branch_labels = ("runs",)
depends_on = None


def upgrade() -> None:
    op.execute("DROP TABLE IF EXISTS schema_version")
