"""The interaction log on SQLite: every retrieve and the feedback given on it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from service.domain.interactions import Feedback, Interaction, InteractionResult
from service.stores.sqlite import SqliteFile

_COLUMNS = (
    "id, at, namespace, asker, question, results, strong_match, best_relevance, took_ms, "
    "answer_confidence"
)


class SqliteInteractionLog(SqliteFile):
    def __init__(self, path: Path) -> None:
        super().__init__(path, "sqlite/interactions")

    def record(self, interaction: Interaction) -> None:
        i = interaction
        results = json.dumps([[r.id, r.relevance, r.score] for r in i.results])
        with self._lock:
            self._db.execute(
                f"INSERT INTO interactions ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    i.id,
                    i.at,
                    i.namespace,
                    i.asker,
                    i.question,
                    results,
                    int(i.strong_match),
                    i.best_relevance,
                    i.took_ms,
                    i.answer_confidence,
                ),
            )

    def get(self, interaction_id: str) -> Interaction | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM interactions WHERE id = ?", (interaction_id,)
            ).fetchone()
        return None if row is None else _interaction(row)

    def add_feedback(self, feedback: Feedback) -> None:
        f = feedback
        with self._lock:
            self._db.execute(
                "INSERT INTO feedback (interaction_id, at, rating, comment, actor) "
                "VALUES (?,?,?,?,?)",
                (f.interaction_id, f.at, f.rating, f.comment, f.actor),
            )

    def between(
        self, namespace: str, start: float, end: float
    ) -> tuple[list[Interaction], list[Feedback]]:
        with self._lock:
            asked = self._db.execute(
                f"SELECT {_COLUMNS} FROM interactions WHERE namespace = ? AND at >= ? AND at < ? "
                "ORDER BY at, rowid",
                (namespace, start, end),
            ).fetchall()
            given = self._db.execute(
                "SELECT f.interaction_id, f.at, f.rating, f.comment, f.actor FROM feedback f "
                "JOIN interactions i ON i.id = f.interaction_id "
                "WHERE i.namespace = ? AND i.at >= ? AND i.at < ? ORDER BY f.at, f.rowid",
                (namespace, start, end),
            ).fetchall()
        return [_interaction(r) for r in asked], [_feedback(r) for r in given]


def _interaction(row: sqlite3.Row) -> Interaction:
    return Interaction(
        id=row["id"],
        at=row["at"],
        namespace=row["namespace"],
        asker=row["asker"],
        question=row["question"],
        results=[InteractionResult(*r) for r in json.loads(row["results"])],
        strong_match=bool(row["strong_match"]),
        best_relevance=row["best_relevance"],
        took_ms=row["took_ms"],
        answer_confidence=row["answer_confidence"],
    )


def _feedback(row: sqlite3.Row) -> Feedback:
    return Feedback(
        interaction_id=row["interaction_id"],
        at=row["at"],
        rating=row["rating"],
        comment=row["comment"],
        actor=row["actor"],
    )
