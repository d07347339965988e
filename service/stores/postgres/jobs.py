"""The job log on Postgres: the runs of every replica's lifecycle jobs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from psycopg.rows import DictRow
from psycopg.types.json import Jsonb

from service.domain.models import JobRun
from service.stores.postgres.pool import Pool

_COLUMNS = "id, job, replica, started_at, finished_at, result, error, slot"


class PostgresJobLog:
    """Runs of every replica; a slot (a scheduled time) is claimed by one replica per job."""

    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    def start(self, job: str, replica: str, at: float, slot: float | None = None) -> int | None:
        with self._pool.connection() as conn:
            row = conn.execute(
                "INSERT INTO job_runs (job, replica, started_at, slot) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING RETURNING id",
                (job, replica, at, slot),
            ).fetchone()
        return None if row is None else int(row["id"])

    def finish(
        self, run: int, at: float, result: Mapping[str, Any] | None, error: str | None
    ) -> None:
        encoded = None if result is None else Jsonb(dict(result))
        with self._pool.connection() as conn:
            conn.execute(
                "UPDATE job_runs SET finished_at = %s, result = %s, error = %s WHERE id = %s",
                (at, encoded, error, run),
            )

    def last(self) -> dict[str, JobRun]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT DISTINCT ON (job) {_COLUMNS} FROM job_runs "
                "ORDER BY job, started_at DESC, id DESC"
            ).fetchall()
        return {row["job"]: _run(row) for row in rows}

    def runs(self, job: str, limit: int = 20) -> list[JobRun]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM job_runs WHERE job = %s "
                "ORDER BY started_at DESC, id DESC LIMIT %s",
                (job, limit),
            ).fetchall()
        return [_run(row) for row in rows]

    def close(self) -> None:
        """Nothing of its own to release: the pool is closed by whoever opened it."""


def _run(row: DictRow) -> JobRun:
    return JobRun(
        id=row["id"],
        job=row["job"],
        replica=row["replica"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        result=row["result"],
        error=row["error"],
        slot=row["slot"],
    )
