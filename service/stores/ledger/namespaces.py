"""A namespace's live entries whole, for its export and import (``NamespaceEntries``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple

from sqlalchemy import delete, select

from service.domain.entries import ExportedEntry, Supersession, entry_key
from service.stores.entry_rows import entry_values, pack
from service.stores.ledger.core import HISTORY, LedgerCore, past
from service.stores.ledger.statements import ENTRY, LIVE, WRITTEN, E, S
from service.stores.ledger.supersessions import mark_replaced
from service.stores.tables import chunks, history, quarantine, supersessions


class SqlNamespaceEntries(LedgerCore):
    """A namespace's live entries, paged and restored."""

    def entry_page(self, namespace: str, after: str, limit: int) -> list[ExportedEntry]:
        """Live entries of the namespace after ``after``, by key (within a namespace, the
        order of ids), read through the primary key."""
        query = (
            select(*ENTRY)
            .where(E.key > entry_key(namespace, after), E.key < past(namespace), LIVE)
            .order_by(E.key)
            .limit(limit)
        )
        with self._db.snapshot() as conn:
            rows = conn.execute(query).all()
            hydrated = self._hydrate(conn, rows)
            events = self._histories(conn, list(hydrated))
            replaced: dict[str, list[Supersession]] = {}
            if hydrated:
                query = (
                    select(S.key, S.by_key, S.at, S.actor)
                    .where(self._db.key_in(S.by_key))
                    .order_by(S.by_key, S.at, S.key)
                )
                for row in conn.execute(query, self._keys(list(hydrated))):
                    replaced.setdefault(row.by_key, []).append(Supersession(*row))
        return [
            ExportedEntry(s, tuple(events.get(k, ())), tuple(replaced.get(k, ())))
            for k, s in hydrated.items()
        ]

    def restore(self, items: Sequence[ExportedEntry]) -> None:
        """Write entries (a key given twice is written as given last) with their history."""
        if not items:
            return
        latest = list({i.stored.entry.key: i for i in items}.values())
        keys = [i.stored.entry.key for i in latest]
        with self._db.write() as conn:
            written = self._db.draw_written(conn, len(latest))
            rows = [
                (*entry_values(i.stored), "pending", n)
                for i, n in zip(latest, written, strict=True)
            ]
            self._db.replace_entries(conn, WRITTEN, rows)
            for table in (chunks, quarantine, history):
                self._delete(conn, table, keys)
            self._db.insert_rows(
                conn,
                chunks,
                ("key", "number", "text", "vector"),
                [
                    (c.key, c.number, c.text, pack(c.vector))
                    for i in latest
                    for c in i.stored.chunks
                ],
            )
            self._db.insert_rows(
                conn,
                history,
                HISTORY,
                [(i.stored.entry.key, *astuple(h)) for i in latest for h in i.history],
            )
            freed = list(conn.execute(select(S.key).where(S.by_key.in_(keys))).scalars())
            conn.execute(delete(supersessions).where(S.by_key.in_(keys)))
            relations = [r for i in latest for r in i.supersedes]
            if relations:
                conn.execute(
                    self._db.insert(supersessions).on_conflict_do_nothing(
                        index_elements=[S.key, S.by_key]
                    ),
                    [
                        {"key": r.older, "by_key": r.newer, "at": r.at, "actor": r.actor}
                        for r in relations
                    ],
                )
            # An entry's replacement is the latest of its supersessions, whichever of the
            # two was restored first.
            touched = list(dict.fromkeys([*keys, *freed, *(r.older for r in relations)]))
            mark_replaced(conn, touched)
            self._append(conn, touched, self._clock())
