"""The job log on SQLite: the runs of the lifecycle jobs of one process."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from service.domain.models import JobRun
from service.stores.sqlite import SqliteFile

_COLUMNS = "id, job, replica, started_at, finished_at, result, error, slot"


class SqliteJobLog(SqliteFile):
    """Runs in their own file; a slot (a scheduled time) is claimed once per job, whatever
    the connection that claims it."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "sqlite/jobs")

    def start(self, job: str, replica: str, at: float, slot: float | None = None) -> int | None:
        with self._lock:
            row = self._db.execute(
                "INSERT INTO job_runs (job, replica, started_at, slot) VALUES (?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING RETURNING id",
                (job, replica, at, slot),
            ).fetchone()
        return None if row is None else int(row["id"])

    def finish(
        self, run: int, at: float, result: Mapping[str, Any] | None, error: str | None
    ) -> None:
        encoded = None if result is None else json.dumps(dict(result))
        with self._lock:
            self._db.execute(
                "UPDATE job_runs SET finished_at = ?, result = ?, error = ? WHERE id = ?",
                (at, encoded, error, run),
            )

    def last(self) -> dict[str, JobRun]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM job_runs r WHERE id = (SELECT id FROM job_runs "
                "WHERE job = r.job ORDER BY started_at DESC, id DESC LIMIT 1) ORDER BY job"
            ).fetchall()
        return {row["job"]: _run(row) for row in rows}

    def runs(self, job: str, limit: int = 20) -> list[JobRun]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM job_runs WHERE job = ? "
                "ORDER BY started_at DESC, id DESC LIMIT ?",
                (job, limit),
            ).fetchall()
        return [_run(row) for row in rows]


def _run(row: sqlite3.Row) -> JobRun:
    return JobRun(
        id=row["id"],
        job=row["job"],
        replica=row["replica"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        result=None if row["result"] is None else json.loads(row["result"]),
        error=row["error"],
        slot=row["slot"],
    )
