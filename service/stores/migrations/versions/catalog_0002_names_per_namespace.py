"""Collection names unique within their namespace, not across namespaces: two namespaces may
each hold a collection of the same name, and adding one never tells what another holds.

SQLite rebuilds the table (with foreign keys off, as it requires); Postgres swaps the
constraint.

Revision ID: catalog_0002_names_per_namespace
Revises: catalog_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "catalog_0002_names_per_namespace"
down_revision = "catalog_0001"
branch_labels = None
depends_on = None

UNIQUE = "collections_namespace_name"


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        for unique in sa.inspect(bind).get_unique_constraints("collections"):
            if unique["column_names"] == ["name"] and unique["name"]:
                op.drop_constraint(unique["name"], "collections", type_="unique")
        op.create_unique_constraint(UNIQUE, "collections", ["namespace", "name"])
        return
    op.execute(
        "CREATE TABLE collections_named (id TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL, "
        "namespace TEXT NOT NULL, path TEXT NOT NULL, mask TEXT NOT NULL, tier TEXT NOT NULL, "
        "created_at FLOAT NOT NULL, scanned_at FLOAT, "
        f"CONSTRAINT {UNIQUE} UNIQUE (namespace, name))"
    )
    op.execute(
        "INSERT INTO collections_named SELECT id, name, namespace, path, mask, tier, "
        "created_at, scanned_at FROM collections"
    )
    op.execute("DROP TABLE collections")
    op.execute("ALTER TABLE collections_named RENAME TO collections")
