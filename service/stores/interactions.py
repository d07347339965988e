"""The interaction log: every retrieve and the feedback given on it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select

from service.domain.model import Feedback, Interaction, InteractionResult
from service.lib.fields import fields_of
from service.stores.database import Database, erase_namespace
from service.stores.tables import feedback, interaction_log

Q, F = interaction_log.c, feedback.c
ASKED = [Q.id, Q.at, Q.namespace, Q.asker, Q.question, Q.results, Q.strong_match]
ASKED += [Q.best_relevance, Q.took_ms, Q.answer_confidence]
GIVEN = [F.interaction_id, F.at, F.rating, F.comment, F.actor]


class SqlInteractionLog:
    def __init__(self, database: Database) -> None:
        self._db = database

    def record(self, interaction: Interaction) -> None:
        with self._db.write() as conn:
            conn.execute(interaction_log.insert().values(_row(interaction)))

    def get(self, interaction_id: str) -> Interaction | None:
        with self._db.read() as conn:
            row = conn.execute(select(*ASKED).where(Q.id == interaction_id)).first()
        return None if row is None else _interaction(row)

    def add_feedback(self, given: Feedback) -> None:
        with self._db.write() as conn:
            conn.execute(feedback.insert().values(_given(given)))

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

    def interaction_page(
        self, namespace: str, after: int, limit: int
    ) -> list[tuple[int, Interaction]]:
        with self._db.read() as conn:
            rows = conn.execute(
                select(Q.n, *ASKED)
                .where(Q.namespace == namespace, Q.n > after)
                .order_by(Q.n)
                .limit(limit)
            ).all()
        return [(row.n, _interaction(row, skip=1)) for row in rows]

    def feedback_page(self, namespace: str, after: int, limit: int) -> list[tuple[int, Feedback]]:
        with self._db.read() as conn:
            rows = conn.execute(
                select(F.id, *GIVEN)
                .join(interaction_log, Q.id == F.interaction_id)
                .where(Q.namespace == namespace, F.id > after)
                .order_by(F.id)
                .limit(limit)
            ).all()
        return [(row[0], Feedback(*row[1:])) for row in rows]

    def counted(self, namespace: str) -> tuple[int, int]:
        mine = Q.namespace == namespace
        with self._db.snapshot() as conn:
            asked = conn.execute(select(func.count()).where(mine)).scalar_one()
            given = conn.execute(
                select(func.count())
                .select_from(feedback.join(interaction_log, Q.id == F.interaction_id))
                .where(mine)
            ).scalar_one()
        return int(asked), int(given)

    def restore(
        self, interactions: Sequence[Interaction], feedback_given: Sequence[Feedback]
    ) -> int:
        added = 0
        with self._db.write() as conn:
            if interactions:
                known = set(
                    conn.scalars(select(Q.id).where(Q.id.in_([i.id for i in interactions])))
                )
                fresh = [
                    i for i in dict((i.id, i) for i in interactions).values() if i.id not in known
                ]
                if fresh:
                    conn.execute(interaction_log.insert(), [_row(i) for i in fresh])
                added += len(fresh)
            for f in feedback_given:
                same = [F.interaction_id == f.interaction_id, F.at == f.at, F.rating == f.rating]
                same += [F.actor == f.actor, _same(F.comment, f.comment)]
                if conn.execute(select(func.count()).where(*same)).scalar_one():
                    continue
                conn.execute(feedback.insert().values(**_given(f)))
                added += 1
        return added

    def erase(self, namespace: str) -> tuple[int, int]:
        return erase_namespace(self._db, namespace, interaction_log, feedback, F.interaction_id)

    def close(self) -> None:
        """Nothing of its own to release: the database is closed by whoever opened it."""


def _row(i: Interaction) -> dict[str, Any]:
    asked = ("id", "at", "namespace", "asker", "question", "strong_match", "best_relevance")
    row = fields_of(i, *asked, "took_ms", "answer_confidence")
    row["results"] = [[r.id, r.relevance, r.score] for r in i.results]
    return row


def _given(f: Feedback) -> dict[str, Any]:
    return fields_of(f, "interaction_id", "at", "rating", "comment", "actor")


def _same(column: Any, value: str | None) -> Any:
    return column.is_(None) if value is None else column == value


def _interaction(row: Any, skip: int = 0) -> Interaction:
    values = {k: v for n, (k, v) in enumerate(row._mapping.items()) if n >= skip}
    values["results"] = [InteractionResult(*r) for r in values["results"]]
    values["strong_match"] = bool(values["strong_match"])
    return Interaction(**values)
