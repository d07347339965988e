"""The ledger's statements: those every database runs alike, built once, and those that take
a list of keys, built for one database (``Statements``)."""

from __future__ import annotations

from sqlalchemy import bindparam, case, delete, func, literal_column, select, update

from service.stores.database import Database
from service.stores.entry_rows import FIELDS, STORED
from service.stores.tables import changes, chunks, entries, history, quarantine, supersessions

E, C, S = entries.c, chunks.c, supersessions.c
LIVE = E.state.in_([literal_column("'pending'"), literal_column("'synced'")])
"""Entries every read sees: not being deleted, not set aside."""
ENTRY = [E[name] for name in FIELDS]
WRITTEN = (*STORED, "state", "written")
"""The columns a write gives."""

EMBEDDED = (
    select(C.key, func.count().label("n")).where(C.vector.is_not(None)).group_by(C.key).subquery()
)
STATS = (
    select(
        E.namespace,
        E.tier,
        E.archived,
        func.count(),
        func.sum(func.coalesce(EMBEDDED.c.n, 0)),
        func.sum(case((EMBEDDED.c.n > 0, E.tokens), else_=0)),
        func.sum(E.tokens),
    )
    .select_from(entries.outerjoin(EMBEDDED, EMBEDDED.c.key == E.key))
    .where(LIVE)
    .group_by(E.namespace, E.tier, E.archived)
)
INDEXED_TIERS = E.tier.in_([literal_column("'A'"), literal_column("'C'")])
CHANGES_AFTER = (
    select(changes.c.seq, changes.c.key, changes.c.at)
    .where(changes.c.seq > bindparam("after"))
    .order_by(changes.c.seq)
    .limit(bindparam("limit"))
)


class Statements:
    """The statements that take a list of keys, in the way of one database."""

    def __init__(self, database: Database) -> None:
        among = database.key_in

        self.live_rows = select(*ENTRY).where(among(E.key), LIVE)
        self.chunks_of = select(C.key, C.number, C.text, C.vector).where(among(C.key))
        texts = select(database.gather(C.text, C.number)).where(C.key == E.key)
        self.passages = select(*ENTRY, texts.scalar_subquery().label("texts")).where(
            among(E.key), LIVE
        )
        """Live entries with their chunks' texts in one column, in chunk order."""
        self.vectors_of = (
            select(C.key, C.vector)
            .where(among(C.key), C.vector.is_not(None))
            .order_by(C.key, C.number)
        )
        self.present = select(E.key).where(among(E.key)).order_by(E.key).with_for_update()
        """Keys that have a row; on Postgres their rows are locked in one order by every
        writer, so writers never deadlock."""
        self.present_states = (
            select(E.key, E.state, E.tier, E.archived)
            .where(among(E.key))
            .order_by(E.key)
            .with_for_update()
        )
        """``present`` with what each row says of its vectors: its state, tier and archived
        flag (``vectors_may_remain``)."""
        self.delete = {
            t: delete(t).where(among(t.c.key)) for t in (entries, chunks, quarantine, history)
        }
        self.histories = (
            select(history.c.key, history.c.at, history.c.action, history.c.actor, history.c.detail)
            .where(among(history.c.key))
            .order_by(history.c.key, history.c.at, history.c.id)
        )
        self.set_state = update(entries).where(among(E.key)).values(state=bindparam("state"))
