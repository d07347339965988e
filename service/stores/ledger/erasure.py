"""A namespace erased from the ledger, and the record of its erasures (``NamespaceEntries``)."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import ColumnElement, delete, select

from service.domain.entries import Erasure, erasure_key
from service.stores.ledger.core import LedgerCore, past
from service.stores.ledger.references import erase_references
from service.stores.tables import (
    changes,
    chunks,
    entries,
    erasures,
    history,
    quarantine,
    supersessions,
)


class SqlErasures(LedgerCore):
    """Namespaces erased, and the audit of it."""

    def erase(
        self, namespace: str, *, actor: str, at: float, counted: Mapping[str, int]
    ) -> Erasure:
        """Everything under the namespace's keys, found by key range (``ns:`` up to
        ``ns;``, the character after the colon), goes in one transaction."""
        removed: dict[str, int] = {}
        with self._db.write() as conn:
            for name, table in (
                ("entries", entries),
                ("chunks", chunks),
                ("history", history),
                ("quarantined", quarantine),
                ("changes", changes),
                ("supersessions", supersessions),
            ):
                done = conn.execute(delete(table).where(_under(table.c.key, namespace)))
                removed[name] = int(done.rowcount)
            removed.pop("chunks")
            removed.pop("supersessions")
            removed["references"], _ = erase_references(conn, namespace)
            counts = {**removed, **counted}
            self._append(conn, [erasure_key(namespace)], at)
            conn.execute(
                erasures.insert().values(namespace=namespace, at=at, actor=actor, counts=counts)
            )
        return Erasure(namespace, at, actor, counts)

    def erasures(self, namespaces: frozenset[str] | None = None, limit: int = 100) -> list[Erasure]:
        x = erasures.c
        query = select(x.namespace, x.at, x.actor, x.counts)
        if namespaces is not None:
            query = query.where(x.namespace.in_(sorted(namespaces)))
        with self._db.read() as conn:
            rows = conn.execute(query.order_by(x.id.desc()).limit(limit)).all()
        return [Erasure(ns, at, actor, dict(counts)) for ns, at, actor, counts in rows]


def _under(column: ColumnElement[str], namespace: str) -> ColumnElement[bool]:
    """Keys of the namespace, its erasure key included."""
    return (column >= erasure_key(namespace)) & (column < past(namespace))
