"""The interaction log: every retrieve and the feedback given on it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from service.domain.interactions import Feedback, Interaction, InteractionResult
from service.stores.database import Database
from service.stores.tables import feedback, interaction_log

Q, F = interaction_log.c, feedback.c
ASKED = [Q.id, Q.at, Q.namespace, Q.asker, Q.question, Q.results, Q.strong_match]
ASKED += [Q.best_relevance, Q.took_ms, Q.answer_confidence]
GIVEN = [F.interaction_id, F.at, F.rating, F.comment, F.actor]


class SqlInteractionLog:
    def __init__(self, database: Database) -> None:
        self._db = database

    def record(self, interaction: Interaction) -> None:
        i = interaction
        with self._db.write() as conn:
            conn.execute(
                interaction_log.insert().values(
                    id=i.id,
                    at=i.at,
                    namespace=i.namespace,
                    asker=i.asker,
                    question=i.question,
                    results=[[r.id, r.relevance, r.score] for r in i.results],
                    strong_match=i.strong_match,
                    best_relevance=i.best_relevance,
                    took_ms=i.took_ms,
                    answer_confidence=i.answer_confidence,
                )
            )

    def get(self, interaction_id: str) -> Interaction | None:
        with self._db.read() as conn:
            row = conn.execute(select(*ASKED).where(Q.id == interaction_id)).first()
        return None if row is None else _interaction(row)

    def add_feedback(self, given: Feedback) -> None:
        f = given
        with self._db.write() as conn:
            conn.execute(
                feedback.insert().values(
                    interaction_id=f.interaction_id,
                    at=f.at,
                    rating=f.rating,
                    comment=f.comment,
                    actor=f.actor,
                )
            )

    def between(
        self, namespace: str, start: float, end: float
    ) -> tuple[list[Interaction], list[Feedback]]:
        day = (Q.namespace == namespace, Q.at >= start, Q.at < end)
        with self._db.snapshot() as conn:
            asked = conn.execute(select(*ASKED).where(*day).order_by(Q.at, Q.n)).all()
            given = conn.execute(
                select(*GIVEN)
                .join(interaction_log, Q.id == F.interaction_id)
                .where(*day)
                .order_by(F.at, F.id)
            ).all()
        return [_interaction(r) for r in asked], [Feedback(*r) for r in given]

    def close(self) -> None:
        """Nothing of its own to release: the database is closed by whoever opened it."""


def _interaction(row: Any) -> Interaction:
    values = dict(row._mapping)
    values["results"] = [InteractionResult(*r) for r in values["results"]]
    values["strong_match"] = bool(values["strong_match"])
    return Interaction(**values)
