"""Supersessions as the ledger's writes keep them: made by a write, dropped with the entries
they tie, and each entry's ``superseded_by`` set from those left. Each step runs in the
caller's transaction."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, bindparam, delete, or_, select, update

from service.domain.entries import key_id
from service.stores.database import Database
from service.stores.ledger.core import HISTORY
from service.stores.ledger.statements import E, S
from service.stores.tables import entries, history, supersessions


def supersede(
    db: Database,
    conn: Connection,
    pairs: Sequence[tuple[str, str]],
    present: set[str],
    actor: str,
    at: float,
) -> list[str]:
    """Mark each older entry of ``pairs`` (those ``present``) replaced by the newer;
    returns the older keys."""
    wanted = [(old, new) for old, new in dict.fromkeys(pairs) if old != new and old in present]
    if not wanted:
        return []
    upsert = db.insert(supersessions)
    conn.execute(
        upsert.on_conflict_do_nothing(index_elements=[S.key, S.by_key]),
        [{"key": old, "by_key": new, "at": at, "actor": actor} for old, new in wanted],
    )
    latest = {old: new for old, new in wanted}
    conn.execute(
        update(entries).where(E.key == bindparam("old")).values(superseded_by=bindparam("newer")),
        [{"old": old, "newer": key_id(new)} for old, new in latest.items()],
    )
    db.insert_rows(
        conn,
        history,
        HISTORY,
        [(old, at, "superseded", actor, key_id(new)) for old, new in wanted],
    )
    return list(latest)


def mark_replaced(conn: Connection, keys: Sequence[str]) -> dict[str, str]:
    """Set each entry's ``superseded_by`` from its supersessions: the latest, or none;
    returns the key of the latest replacement of each entry that has one."""
    if not keys:
        return {}
    latest = dict(
        conn.execute(select(S.key, S.by_key).where(S.key.in_(keys)).order_by(S.at, S.by_key)).all()
    )
    conn.execute(
        update(entries).where(E.key == bindparam("old")).values(superseded_by=bindparam("newer")),
        [{"old": k, "newer": key_id(latest[k]) if k in latest else None} for k in keys],
    )
    return latest


def reinstate(
    db: Database, conn: Connection, removed: Sequence[str], actor: str, at: float
) -> list[str]:
    """Drop the supersessions of removed entries; an entry whose every replacement is
    gone is current again (``reinstated`` in its history). Returns the keys changed."""
    replaced = list(
        conn.execute(
            select(S.key, S.by_key).where(S.by_key.in_(removed), S.key.not_in(removed))
        ).all()
    )
    conn.execute(delete(supersessions).where(or_(S.key.in_(removed), S.by_key.in_(removed))))
    if not replaced:
        return []
    older = list(dict.fromkeys(old for old, _ in replaced))
    remaining = mark_replaced(conn, older)
    gone = {old: new for old, new in replaced}
    db.insert_rows(
        conn,
        history,
        HISTORY,
        [
            (old, at, "reinstated", actor, key_id(gone[old]))
            for old in older
            if old not in remaining
        ],
    )
    return older
