"""One schema for both databases: interactions and feedback numbered in the order logged.

SQLite logs number them by their rowid so far: ``interactions.n`` and ``feedback.id`` keep
those numbers (the tables are rebuilt, with foreign keys off, as SQLite requires). Postgres
logs had both; their interactions are keyed by ``n`` from here, ``id`` unique.

Revision ID: interactions_0002
Revises: interactions_0001
"""

from alembic import op

revision = "interactions_0002"
down_revision = "interactions_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP TABLE IF EXISTS schema_version")
    if op.get_bind().dialect.name != "sqlite":
        op.execute("ALTER TABLE feedback DROP CONSTRAINT feedback_interaction_id_fkey")
        op.execute("ALTER TABLE interactions DROP CONSTRAINT interactions_pkey")
        op.execute("ALTER TABLE interactions ADD CONSTRAINT interactions_pkey PRIMARY KEY (n)")
        op.execute("ALTER TABLE interactions ADD CONSTRAINT interactions_id_key UNIQUE (id)")
        op.execute(
            "ALTER TABLE feedback ADD CONSTRAINT feedback_interaction_id_fkey FOREIGN KEY "
            "(interaction_id) REFERENCES interactions (id) ON DELETE CASCADE"
        )
        return
    op.execute(
        "CREATE TABLE interactions_numbered (n INTEGER NOT NULL PRIMARY KEY, "
        "id TEXT NOT NULL UNIQUE, at FLOAT NOT NULL, namespace TEXT NOT NULL, asker TEXT, "
        "question TEXT NOT NULL, results JSON NOT NULL, strong_match BOOLEAN NOT NULL, "
        "best_relevance FLOAT NOT NULL, took_ms FLOAT NOT NULL, answer_confidence FLOAT)"
    )
    op.execute(
        "INSERT INTO interactions_numbered SELECT rowid, id, at, namespace, asker, question, "
        "results, strong_match, best_relevance, took_ms, answer_confidence FROM interactions"
    )
    op.execute(
        "CREATE TABLE feedback_numbered (id INTEGER NOT NULL PRIMARY KEY, "
        "interaction_id TEXT NOT NULL REFERENCES interactions (id) ON DELETE CASCADE, "
        "at FLOAT NOT NULL, rating TEXT NOT NULL, comment TEXT, actor TEXT NOT NULL)"
    )
    op.execute(
        "INSERT INTO feedback_numbered SELECT rowid, interaction_id, at, rating, comment, actor "
        "FROM feedback"
    )
    op.execute("DROP TABLE feedback")
    op.execute("DROP TABLE interactions")
    op.execute("ALTER TABLE interactions_numbered RENAME TO interactions")
    op.execute("ALTER TABLE feedback_numbered RENAME TO feedback")
    op.execute("CREATE INDEX interactions_day ON interactions (namespace, at)")
    op.execute("CREATE INDEX feedback_interaction ON feedback (interaction_id)")
