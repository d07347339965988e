"""How far the indexes are in step with the entries: pending, synced, being deleted or set
aside (``IndexState``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from sqlalchemy import func, select

from service.domain.entries import Quarantined, StoredEntry
from service.stores.ledger.core import LedgerCore
from service.stores.ledger.statements import ENTRY, INDEXED_TIERS, LIVE, C, E
from service.stores.tables import chunks, entries, quarantine


class SqlIndexState(LedgerCore):
    """Entry states and the quarantine (``IndexState``)."""

    def mark_synced(self, keys: Iterable[str]) -> None:
        wanted = list(keys)
        if wanted:
            with self._db.write() as conn:
                self._set_state(conn, wanted, "synced")

    def mark_deleting(self, keys: Sequence[str]) -> list[str]:
        if not keys:
            return []
        with self._db.write() as conn:
            existing = self._present(conn, keys)
            self._set_state(conn, existing, "deleting")
            self._append(conn, existing, self._clock())
        return existing

    def unsynced(self) -> tuple[list[StoredEntry], list[str]]:
        """Entries written but not yet indexed, and keys flagged for removal, each in the
        order written."""
        with self._db.snapshot() as conn:
            rows = conn.execute(
                select(*ENTRY).where(E.state == "pending").order_by(E.written)
            ).all()
            pending = list(self._hydrate(conn, rows).values())
            deleting = list(
                conn.scalars(select(E.key).where(E.state == "deleting").order_by(E.written))
            )
        return pending, deleting

    def quarantine(self, reasons: Mapping[str, str], *, at: float) -> None:
        if not reasons:
            return
        with self._db.write() as conn:
            present = self._present(conn, list(reasons))
            self._set_state(conn, present, "quarantined")
            upsert = self._db.insert(quarantine)
            upsert = upsert.on_conflict_do_update(
                index_elements=[quarantine.c.key],
                set_={"reason": upsert.excluded.reason, "at": upsert.excluded.at},
            )
            conn.execute(upsert, [{"key": k, "reason": r, "at": at} for k, r in reasons.items()])
            self._append(conn, present, at)

    def quarantined(self, limit: int = 1000) -> list[Quarantined]:
        q = quarantine.c
        with self._db.read() as conn:
            rows = conn.execute(
                select(q.key, q.reason, q.at)
                .join(entries, E.key == q.key)
                .where(E.state == "quarantined")
                .order_by(q.at, q.key)
                .limit(limit)
            ).all()
        return [Quarantined(*row) for row in rows]

    def missing_vectors(self, limit: int = 500) -> list[str]:
        """Keys of tier A and C entries written while no model was loaded."""
        query = (
            select(E.key)
            .distinct()
            .join(chunks, C.key == E.key)
            .where(INDEXED_TIERS, C.vector.is_(None), LIVE)
            .limit(limit)
        )
        with self._db.read() as conn:
            return list(conn.scalars(query))

    def vector_count(self) -> int:
        """Chunks the vector index should hold: those of live tier A and C entries."""
        query = (
            select(func.count())
            .select_from(chunks.join(entries, E.key == C.key))
            .where(INDEXED_TIERS, E.archived.is_(False), C.vector.is_not(None), LIVE)
        )
        with self._db.read() as conn:
            return int(conn.execute(query).scalar_one())
