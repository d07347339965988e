"""Reference questions and the fits of sweeps (``References``, ``Fits``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, delete, func, select
from sqlalchemy.exc import IntegrityError

from service.domain.model.references import Fit, Reference, asked_as
from service.lib.fields import fields_of
from service.stores.ledger.core import LedgerCore
from service.stores.tables import fits, fits_in_force, references

VERSION_TRIES = 3
"""Attempts at a fit's version when another replica's sweep took the same one."""


class SqlReferences(LedgerCore):
    def add_references(self, found: Sequence[Reference]) -> int:
        if not found:
            return 0
        r = references.c
        added = 0
        with self._db.write() as conn:
            for namespace in dict.fromkeys(x.namespace for x in found):
                mine = [x for x in found if x.namespace == namespace]
                kept = set(
                    conn.scalars(
                        select(r.id).where(r.namespace == namespace, r.id.in_([x.id for x in mine]))
                    )
                )
                seq = conn.scalar(select(func.max(r.seq)).where(r.namespace == namespace)) or 0
                rows = []
                for x in dict((x.id, x) for x in mine if x.id not in kept).values():
                    seq += 1
                    rows.append(_reference_row(x, seq))
                if rows:
                    conn.execute(references.insert(), rows)
                added += len(rows)
        return added

    def references(self, namespace: str, offset: int = 0, limit: int = 1000) -> list[Reference]:
        r = references.c
        query = (
            select(*_REFERENCE)
            .where(r.namespace == namespace)
            .order_by(r.seq, r.id)
            .offset(offset)
            .limit(limit)
        )
        with self._db.read() as conn:
            return [_reference(row) for row in conn.execute(query)]

    def reference_asking(self, namespace: str, question: str) -> Reference | None:
        r = references.c
        query = (
            select(*_REFERENCE)
            .where(r.namespace == namespace, r.asked == asked_as(question))
            .order_by(r.seq.desc())
            .limit(1)
        )
        with self._db.read() as conn:
            row = conn.execute(query).first()
        return _reference(row) if row is not None else None

    def count_references(self, namespace: str, since: float = 0.0) -> int:
        r = references.c
        query = select(func.count()).where(r.namespace == namespace, r.at >= since)
        with self._db.read() as conn:
            return int(conn.scalar(query) or 0)

    def recorded_between(self, namespace: str, start: float, end: float) -> dict[str, int]:
        r = references.c
        query = (
            select(r.source, func.count())
            .where(r.namespace == namespace, r.at >= start, r.at < end)
            .group_by(r.source)
        )
        with self._db.read() as conn:
            return {source: int(n) for source, n in conn.execute(query)}

    def reference_namespaces(self) -> list[str]:
        r = references.c
        with self._db.read() as conn:
            return list(conn.scalars(select(r.namespace).distinct().order_by(r.namespace)))

    def remove_references(self, namespace: str, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        r = references.c
        with self._db.write() as conn:
            done = conn.execute(
                delete(references).where(r.namespace == namespace, r.id.in_(list(ids)))
            )
        return int(done.rowcount)

    def add_fit(self, fit: Fit) -> Fit:
        f = fits.c
        for attempt in range(VERSION_TRIES):
            try:
                with self._db.write() as conn:
                    last = conn.scalar(
                        select(func.max(f.version)).where(f.namespace == fit.namespace)
                    )
                    kept = replace(fit, version=(last or 0) + 1)
                    conn.execute(fits.insert().values(**_fit_row(kept)))
                    _put_in_force(conn, fit.namespace, kept.version)
                return kept
            except IntegrityError:
                if attempt == VERSION_TRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def active_fit(self, namespace: str) -> Fit | None:
        f, a = fits.c, fits_in_force.c
        query = (
            select(*_FIT)
            .join(fits_in_force, (a.namespace == f.namespace) & (a.version == f.version))
            .where(f.namespace == namespace)
        )
        with self._db.read() as conn:
            row = conn.execute(query).first()
        return _fit(row) if row is not None else None

    def fits(self, namespace: str) -> list[Fit]:
        f = fits.c
        query = select(*_FIT).where(f.namespace == namespace).order_by(f.version.desc())
        with self._db.read() as conn:
            return [_fit(row) for row in conn.execute(query)]

    def activate_fit(self, namespace: str, version: int) -> Fit | None:
        f = fits.c
        with self._db.write() as conn:
            row = None
            if version != 0:
                row = conn.execute(
                    select(*_FIT).where(f.namespace == namespace, f.version == version)
                ).first()
                if row is None:
                    raise KeyError(version)
            _put_in_force(conn, namespace, version)
        return _fit(row) if row is not None else None

    def erase_references(self, namespace: str) -> tuple[int, int]:
        with self._db.write() as conn:
            return erase_references(conn, namespace)


def erase_references(conn: Connection, namespace: str) -> tuple[int, int]:
    """Remove the namespace's references and fits in the caller's transaction; how many
    of each."""
    removed = conn.execute(delete(references).where(references.c.namespace == namespace))
    dropped = conn.execute(delete(fits).where(fits.c.namespace == namespace))
    conn.execute(delete(fits_in_force).where(fits_in_force.c.namespace == namespace))
    return int(removed.rowcount), int(dropped.rowcount)


_REFERENCE = (
    references.c.namespace,
    references.c.id,
    references.c.question,
    references.c.answers,
    references.c.source,
    references.c.actor,
    references.c.at,
)
_FIT = (
    fits.c.namespace,
    fits.c.version,
    fits.c.threshold,
    fits.c.floor,
    fits.c.at,
    fits.c.actor,
    fits.c.figures,
)


def _put_in_force(conn: Connection, namespace: str, version: int) -> None:
    a = fits_in_force.c
    conn.execute(delete(fits_in_force).where(a.namespace == namespace))
    conn.execute(fits_in_force.insert().values(namespace=namespace, version=version))


def _reference_row(x: Reference, seq: int) -> dict[str, Any]:
    kept = fields_of(x, "namespace", "id", "question", "source", "actor", "at")
    return {**kept, "seq": seq, "answers": list(x.answers), "asked": asked_as(x.question)}


def _reference(row: Any) -> Reference:
    namespace, id_, question, answers, source, actor, at = row
    return Reference(namespace, id_, question, tuple(answers), source, actor, at)


def _fit_row(fit: Fit) -> dict[str, Any]:
    kept = fields_of(fit, "namespace", "version", "threshold", "floor", "at", "actor")
    return {**kept, "figures": dict(fit.figures)}


def _fit(row: Any) -> Fit:
    namespace, version, threshold, floor, at, actor, figures = row
    return Fit(namespace, version, threshold, floor, at, actor, dict(figures))
