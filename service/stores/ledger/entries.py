"""The entries themselves: written, read whole, removed (``Entries``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sqlalchemy import bindparam, func, select

from service.domain.entries import Entry, StoredEntry, vectors_may_remain
from service.stores.entry_rows import entry_values, pack, row_entry
from service.stores.ledger.core import HISTORY, LedgerCore
from service.stores.ledger.statements import ENTRY, LIVE, WRITTEN, E
from service.stores.ledger.supersessions import reinstate, supersede
from service.stores.tables import chunks, entries, history, quarantine


class SqlEntries(LedgerCore):
    """The entries themselves (``Entries``)."""

    def put(
        self,
        stored: Sequence[StoredEntry],
        *,
        actor: str = "",
        action: str | None = None,
        at: float | None = None,
        supersedes: Sequence[tuple[str, str]] = (),
    ) -> list[str]:
        """Record entries as pending indexing, and in each one's history: ``action``, or
        created / updated as the key is new or not. A key given twice is written once, as
        given last. ``supersedes``: (older, newer) keys, the older replaced by the newer in
        the same transaction (marked, in its history, its change logged). Returns the keys
        written whose earlier version the vector index may still hold."""
        if not stored:
            return []
        now = self._clock() if at is None else at
        keys = [s.entry.key for s in stored]
        latest = list({s.entry.key: s for s in stored}.values())
        with self._db.write() as conn:
            # The entries replaced are locked with those written, in one order.
            before = self._present_states(conn, [*keys, *(old for old, _ in supersedes)])
            existing = set(before)
            held = [
                k for k in dict.fromkeys(keys) if k in before and vectors_may_remain(*before[k])
            ]
            written = self._db.draw_written(conn, len(latest))
            rows = [(*entry_values(s), "pending", n) for s, n in zip(latest, written, strict=True)]
            self._db.replace_entries(conn, WRITTEN, rows)
            self._delete(conn, chunks, keys)
            self._delete(conn, quarantine, keys)
            self._db.insert_rows(
                conn,
                chunks,
                ("key", "number", "text", "vector"),
                [(c.key, c.number, c.text, pack(c.vector)) for s in latest for c in s.chunks],
            )
            self._db.insert_rows(
                conn,
                history,
                HISTORY,
                [
                    (k, now, action or ("updated" if k in existing else "created"), actor, None)
                    for k in keys
                ],
            )
            replaced = supersede(self._db, conn, supersedes, existing, actor, now)
            self._append(conn, [*keys, *replaced], now)
        return held

    def remove(self, keys: Sequence[str], *, actor: str = "", at: float | None = None) -> None:
        if not keys:
            return
        now = self._clock() if at is None else at
        with self._db.write() as conn:
            present = self._present(conn, keys)
            self._delete(conn, entries, keys)
            self._delete(conn, quarantine, keys)
            self._db.insert_rows(
                conn,
                history,
                HISTORY,
                [(k, now, "deleted", actor, None) for k in keys],
            )
            reinstated = reinstate(self._db, conn, present, actor, now) if present else []
            self._append(conn, [*present, *reinstated], now)

    def get(self, keys: Sequence[str]) -> dict[str, StoredEntry]:
        """Live entries with their chunks, vectors included."""
        with self._db.read() as conn:
            return self._hydrate(conn, self._live_rows(conn, keys))

    def last_in_thread(self, namespace: str, thread: str) -> Entry | None:
        """The entry of the thread written last."""
        query = (
            select(*ENTRY)
            .where(E.namespace == namespace, E.thread == thread, LIVE)
            .order_by(E.written.desc())
            .limit(1)
        )
        with self._db.read() as conn:
            row = conn.execute(query).first()
        return None if row is None else row_entry(row._mapping)

    def scan(self, batch: int = 500) -> Iterator[list[StoredEntry]]:
        after = ""
        query = select(*ENTRY).where(E.key > bindparam("after"), LIVE).order_by(E.key)
        while True:
            with self._db.read() as conn:
                rows = conn.execute(query.limit(batch), {"after": after}).all()
                if not rows:
                    return
                hydrated = list(self._hydrate(conn, rows).values())
            after = rows[-1].key
            yield hydrated

    def count(self) -> dict[str, int]:
        with self._db.read() as conn:
            rows = conn.execute(select(E.tier, func.count()).where(LIVE).group_by(E.tier)).all()
        return {tier: n for tier, n in rows}
