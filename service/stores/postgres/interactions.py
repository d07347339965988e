"""The interaction log on Postgres: every retrieve of every replica, and its feedback."""

from __future__ import annotations

from psycopg.rows import DictRow
from psycopg.types.json import Jsonb

from service.domain.interactions import Feedback, Interaction, InteractionResult
from service.stores.postgres.pool import Pool

_COLUMNS = (
    "id, at, namespace, asker, question, results, strong_match, best_relevance, took_ms, "
    "answer_confidence"
)


class PostgresInteractionLog:
    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    def record(self, interaction: Interaction) -> None:
        i = interaction
        results = Jsonb([[r.id, r.relevance, r.score] for r in i.results])
        with self._pool.connection() as conn:
            conn.execute(
                f"INSERT INTO interactions ({_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    i.id,
                    i.at,
                    i.namespace,
                    i.asker,
                    i.question,
                    results,
                    i.strong_match,
                    i.best_relevance,
                    i.took_ms,
                    i.answer_confidence,
                ),
            )

    def get(self, interaction_id: str) -> Interaction | None:
        with self._pool.connection() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM interactions WHERE id = %s", (interaction_id,)
            ).fetchone()
        return None if row is None else _interaction(row)

    def add_feedback(self, feedback: Feedback) -> None:
        f = feedback
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO feedback (interaction_id, at, rating, comment, actor) "
                "VALUES (%s, %s, %s, %s, %s)",
                (f.interaction_id, f.at, f.rating, f.comment, f.actor),
            )

    def between(
        self, namespace: str, start: float, end: float
    ) -> tuple[list[Interaction], list[Feedback]]:
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            asked = conn.execute(
                f"SELECT {_COLUMNS} FROM interactions "
                "WHERE namespace = %s AND at >= %s AND at < %s ORDER BY at, n",
                (namespace, start, end),
            ).fetchall()
            given = conn.execute(
                "SELECT f.interaction_id, f.at, f.rating, f.comment, f.actor FROM feedback f "
                "JOIN interactions i ON i.id = f.interaction_id "
                "WHERE i.namespace = %s AND i.at >= %s AND i.at < %s ORDER BY f.at, f.id",
                (namespace, start, end),
            ).fetchall()
        return [_interaction(r) for r in asked], [_feedback(r) for r in given]

    def close(self) -> None:
        """Nothing of its own to release: the pool is closed by whoever opened it."""


def _interaction(row: DictRow) -> Interaction:
    return Interaction(
        id=row["id"],
        at=row["at"],
        namespace=row["namespace"],
        asker=row["asker"],
        question=row["question"],
        results=[InteractionResult(*r) for r in row["results"]],
        strong_match=row["strong_match"],
        best_relevance=row["best_relevance"],
        took_ms=row["took_ms"],
        answer_confidence=row["answer_confidence"],
    )


def _feedback(row: DictRow) -> Feedback:
    return Feedback(
        interaction_id=row["interaction_id"],
        at=row["at"],
        rating=row["rating"],
        comment=row["comment"],
        actor=row["actor"],
    )
