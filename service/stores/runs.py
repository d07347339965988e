"""The log of job runs: the runs of the lifecycle jobs of one process or of a cluster; a
slot (a scheduled time) is claimed once per job, whatever the process that claims it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select, update

from service.domain.model import JobRun
from service.stores.database import Database
from service.stores.tables import job_runs

R = job_runs.c


class SqlRunLog:
    def __init__(self, database: Database) -> None:
        self._db = database

    def start(self, job: str, replica: str, at: float, slot: float | None = None) -> int | None:
        claim = (
            self._db.insert(job_runs)
            .values(job=job, replica=replica, started_at=at, slot=slot)
            .on_conflict_do_nothing()
            .returning(R.id)
        )
        with self._db.write() as conn:
            run = conn.execute(claim).scalar()
        return None if run is None else int(run)

    def finish(
        self, run: int, at: float, result: Mapping[str, Any] | None, error: str | None
    ) -> None:
        done = update(job_runs).where(R.id == run)
        done = done.values(
            finished_at=at, result=None if result is None else dict(result), error=error
        )
        with self._db.write() as conn:
            conn.execute(done)

    def last(self) -> dict[str, JobRun]:
        newer = job_runs.alias("newer")
        latest = (
            select(newer.c.id)
            .where(newer.c.job == R.job)
            .order_by(newer.c.started_at.desc(), newer.c.id.desc())
            .limit(1)
            .scalar_subquery()
        )
        with self._db.read() as conn:
            rows = conn.execute(select(job_runs).where(R.id == latest).order_by(R.job)).all()
        return {row.job: JobRun(**row._mapping) for row in rows}

    def runs(self, job: str, limit: int = 20) -> list[JobRun]:
        query = (
            select(job_runs)
            .where(R.job == job)
            .order_by(R.started_at.desc(), R.id.desc())
            .limit(limit)
        )
        with self._db.read() as conn:
            return [JobRun(**row._mapping) for row in conn.execute(query)]
