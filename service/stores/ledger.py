"""The ledger: the source of truth for entries, their state and their vectors, on SQLite or
Postgres alike."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import astuple
from itertools import groupby
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Table,
    bindparam,
    case,
    delete,
    exists,
    func,
    or_,
    select,
    update,
)

from service.domain.duplicates import fingerprint
from service.domain.models import (
    ArchivedEntry,
    Change,
    ChangeBounds,
    Chunk,
    Entry,
    Erasure,
    HistoryEvent,
    Quarantined,
    RemovedEntry,
    StoredEntry,
    Supersession,
    entry_key,
    erasure_key,
    key_id,
)
from service.domain.similarity import Matrix
from service.stores.database import Database
from service.stores.entry_rows import entry_values, matrix, pack, row_entry, unpack
from service.stores.ledger_statements import (
    CHANGES_AFTER,
    ENTRY,
    INDEXED_TIERS,
    LIVE,
    STATS,
    WRITTEN,
    C,
    E,
    Statements,
)
from service.stores.tables import (
    change_horizon,
    changes,
    chunks,
    entries,
    erasures,
    history,
    quarantine,
    supersessions,
)

S = supersessions.c
HISTORY = ("key", "at", "action", "actor", "detail")


class SqlLedger:
    """Entries keyed by ``namespace:id``, in a database of one process or of a cluster.

    ``clock`` times what is recorded without a time given (history, changes)."""

    def __init__(self, database: Database, *, clock: Callable[[], float] = time.time) -> None:
        self._db = database
        self._clock = clock
        self._sql = Statements(database)

    def put(
        self,
        stored: Sequence[StoredEntry],
        *,
        actor: str = "",
        action: str | None = None,
        at: float | None = None,
        supersedes: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Record entries as pending indexing, and in each one's history: ``action``, or
        created / updated as the key is new or not. A key given twice is written once, as
        given last. ``supersedes``: (older, newer) keys, the older replaced by the newer in
        the same transaction (marked, in its history, its change logged)."""
        if not stored:
            return
        now = self._clock() if at is None else at
        keys = [s.entry.key for s in stored]
        latest = list({s.entry.key: s for s in stored}.values())
        with self._db.write() as conn:
            # The entries replaced are locked with those written, in one order.
            existing = set(self._present(conn, [*keys, *(old for old, _ in supersedes)]))
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
            replaced = self._supersede(conn, supersedes, existing, actor, now)
            self._append(conn, [*keys, *replaced], now)

    def _supersede(
        self,
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
        upsert = self._db.insert(supersessions)
        conn.execute(
            upsert.on_conflict_do_nothing(index_elements=[S.key, S.by_key]),
            [{"key": old, "by_key": new, "at": at, "actor": actor} for old, new in wanted],
        )
        latest = {old: new for old, new in wanted}
        conn.execute(
            update(entries)
            .where(E.key == bindparam("old"))
            .values(superseded_by=bindparam("newer")),
            [{"old": old, "newer": key_id(new)} for old, new in latest.items()],
        )
        self._db.insert_rows(
            conn,
            history,
            HISTORY,
            [(old, at, "superseded", actor, key_id(new)) for old, new in wanted],
        )
        return list(latest)

    def _mark_replaced(self, conn: Connection, keys: Sequence[str]) -> dict[str, str]:
        """Set each entry's ``superseded_by`` from its supersessions: the latest, or none;
        returns the key of the latest replacement of each entry that has one."""
        if not keys:
            return {}
        latest = dict(
            conn.execute(
                select(S.key, S.by_key).where(S.key.in_(keys)).order_by(S.at, S.by_key)
            ).all()
        )
        conn.execute(
            update(entries)
            .where(E.key == bindparam("old"))
            .values(superseded_by=bindparam("newer")),
            [{"old": k, "newer": key_id(latest[k]) if k in latest else None} for k in keys],
        )
        return latest

    def _reinstate(
        self, conn: Connection, removed: Sequence[str], actor: str, at: float
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
        remaining = self._mark_replaced(conn, older)
        gone = {old: new for old, new in replaced}
        self._db.insert_rows(
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

    def mark_synced(self, keys: Iterable[str]) -> None:
        wanted = list(keys)
        if wanted:
            with self._db.write() as conn:
                self._set_state(conn, wanted, "synced")

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

    def mark_deleting(self, keys: Sequence[str]) -> list[str]:
        if not keys:
            return []
        with self._db.write() as conn:
            existing = self._present(conn, keys)
            self._set_state(conn, existing, "deleting")
            self._append(conn, existing, self._clock())
        return existing

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
            reinstated = self._reinstate(conn, present, actor, now) if present else []
            self._append(conn, [*present, *reinstated], now)

    def history(self, key: str) -> list[HistoryEvent]:
        return self.histories([key]).get(key, [])

    def histories(self, keys: Sequence[str]) -> dict[str, list[HistoryEvent]]:
        """What happened to each entry of ``keys`` that has a history, oldest first."""
        with self._db.read() as conn:
            return self._histories(conn, keys)

    def superseded_between(
        self, namespace: str, start: float, end: float, limit: int = 500
    ) -> list[tuple[str, HistoryEvent]]:
        h = history.c
        query = (
            select(h.key, h.at, h.action, h.actor, h.detail)
            .where(
                # The keys of a namespace: from "ns:" up to "ns;" (";" follows ":").
                h.key >= f"{namespace}:",
                h.key < f"{namespace};",
                h.action == "superseded",
                h.at >= start,
                h.at < end,
            )
            .order_by(h.at, h.id)
            .limit(limit)
        )
        with self._db.read() as conn:
            return [(key, HistoryEvent(*event)) for key, *event in conn.execute(query)]

    def supersessions(self, keys: Sequence[str]) -> list[Supersession]:
        """The supersessions an entry of ``keys`` takes part in, older or newer, oldest
        first."""
        if not keys:
            return []
        query = (
            select(S.key, S.by_key, S.at, S.actor)
            .where(or_(self._db.key_in(S.key), self._db.key_in(S.by_key)))
            .order_by(S.at, S.key, S.by_key)
        )
        with self._db.read() as conn:
            return [Supersession(*row) for row in conn.execute(query, self._keys(keys))]

    def duplicates(self, wanted: Sequence[Entry]) -> dict[str, str]:
        """For each entry of ``wanted`` that repeats a live entry of its namespace (same
        tier, speaker and normalised text) under another key, that entry's id (the one
        written first)."""
        found: dict[str, str] = {}
        by_print: dict[tuple[str, str], list[Entry]] = {}
        for e in wanted:
            by_print.setdefault((e.namespace, fingerprint(e)), []).append(e)
        if not by_print:
            return found
        query = (
            select(E.namespace, E.fingerprint, E.key, E.id)
            .where(
                E.namespace == bindparam("namespace"),
                E.fingerprint == bindparam("fingerprint"),
                LIVE,
            )
            .order_by(E.written)
        )
        with self._db.read() as conn:
            for (namespace, digest), mine in by_print.items():
                rows = conn.execute(query, {"namespace": namespace, "fingerprint": digest}).all()
                for e in mine:
                    other = next((row.id for row in rows if row.key != e.key), None)
                    if other is not None:
                        found[e.key] = other
        return found

    def select_keys(
        self,
        *,
        tier: str,
        archived: bool = False,
        expires_before: float | None = None,
        older_than: float | None = None,
        exclude_kind: str | None = None,
        limit: int = 1000,
    ) -> list[str]:
        """Keys of one tier's entries, by expiry or age, oldest first; the lifecycle jobs'
        worklists."""
        query = select(E.key).where(E.tier == tier, E.archived == archived, LIVE)
        if exclude_kind is not None:
            query = query.where(E.kind != exclude_kind)
        if expires_before is not None:
            query = query.where(E.expires_at.is_not(None), E.expires_at <= expires_before)
        if older_than is not None:
            query = query.where(E.timestamp < older_than)
        with self._db.read() as conn:
            return list(conn.scalars(query.order_by(E.timestamp, E.key).limit(limit)))

    def dated(
        self, namespace: str, tier: str, start: float, end: float, *, archived: bool
    ) -> list[Entry]:
        """The live entries of one namespace and tier dated in ``[start, end)``, archived or
        not as asked, oldest first, without their chunks."""
        query = (
            select(*ENTRY)
            .where(
                E.tier == tier,
                E.archived == archived,
                E.timestamp >= start,
                E.timestamp < end,
                E.namespace == namespace,
                LIVE,
            )
            .order_by(E.timestamp, E.key)
        )
        with self._db.read() as conn:
            return [row_entry(row._mapping) for row in conn.execute(query)]

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

    def stats(self) -> list[tuple[str, str, bool, int, int, int, int]]:
        """Per (namespace, tier, archived): entries, vectors, tokens embedded, tokens."""
        with self._db.read() as conn:
            rows = conn.execute(STATS).all()
        return [
            (ns, tier, bool(archived), *(int(n) for n in counts))
            for ns, tier, archived, *counts in rows
        ]

    def vector_count(self) -> int:
        """Chunks the vector index should hold: those of live tier A and C entries."""
        query = (
            select(func.count())
            .select_from(chunks.join(entries, E.key == C.key))
            .where(INDEXED_TIERS, E.archived.is_(False), C.vector.is_not(None), LIVE)
        )
        with self._db.read() as conn:
            return int(conn.execute(query).scalar_one())

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

    def get(self, keys: Sequence[str]) -> dict[str, StoredEntry]:
        """Live entries with their chunks, vectors included."""
        with self._db.read() as conn:
            return self._hydrate(conn, self._live_rows(conn, keys))

    def passages(self, keys: Sequence[str]) -> dict[str, tuple[Entry, tuple[str, ...]]]:
        """Live entries with their chunk texts, in order; no vector is read."""
        with self._db.read() as conn:
            rows = list(conn.execute(self._sql.passages, self._keys(keys))) if keys else []
        gathered = self._db.gathered
        return {row.key: (row_entry(row._mapping), tuple(gathered(row.texts))) for row in rows}

    def vectors(self, keys: Sequence[str]) -> dict[str, Matrix]:
        """The chunk vectors of the entries that have them, without the rest of the entry:
        each entry's blobs joined into one float32 matrix, no float made a Python object."""
        found: dict[str, Matrix] = {}
        if not keys:
            return found
        with self._db.read() as conn:
            rows = conn.execute(self._sql.vectors_of, self._keys(keys))
            for key, group in groupby(rows, key=lambda row: row[0]):
                found[key] = matrix(row[1] for row in group)
        return found

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

    def changes(self, after: int, limit: int = 1000) -> list[Change]:
        with self._db.read() as conn:
            rows = conn.execute(CHANGES_AFTER, {"after": after, "limit": limit})
            return [Change(*row) for row in rows]

    def change_bounds(self) -> ChangeBounds:
        query = select(
            func.coalesce(select(func.max(change_horizon.c.horizon)).scalar_subquery(), 0),
            func.coalesce(select(func.max(changes.c.seq)).scalar_subquery(), 0),
        )
        with self._db.read() as conn:
            horizon, latest = conn.execute(query).one()
        return ChangeBounds(horizon=int(horizon), latest=max(int(horizon), int(latest)))

    def trim_changes(self, before: float) -> int:
        """Drop the changes made before ``before``, and any numbered below one of them: the
        log stays whole above the horizon."""
        with self._db.write() as conn:
            last = conn.execute(
                select(func.max(changes.c.seq)).where(changes.c.at < before)
            ).scalar_one()
            if last is None:
                return 0
            dropped = conn.execute(delete(changes).where(changes.c.seq <= last)).rowcount
            raise_horizon = self._db.insert(change_horizon).values(one=1, horizon=last)
            conn.execute(
                raise_horizon.on_conflict_do_update(
                    index_elements=[change_horizon.c.one],
                    set_={
                        "horizon": case(
                            (
                                raise_horizon.excluded.horizon > change_horizon.c.horizon,
                                raise_horizon.excluded.horizon,
                            ),
                            else_=change_horizon.c.horizon,
                        )
                    },
                )
            )
        return int(dropped)

    def entry_page(self, namespace: str, after: str, limit: int) -> list[ArchivedEntry]:
        """Live entries of the namespace after ``after``, by key (within a namespace, the
        order of ids), read through the primary key."""
        query = (
            select(*ENTRY)
            .where(E.key > entry_key(namespace, after), E.key < _past(namespace), LIVE)
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
            ArchivedEntry(s, tuple(events.get(k, ())), tuple(replaced.get(k, ())))
            for k, s in hydrated.items()
        ]

    def restore(self, items: Sequence[ArchivedEntry]) -> None:
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
            self._mark_replaced(conn, touched)
            self._append(conn, touched, self._clock())

    def removed_page(self, namespace: str, after: str, limit: int) -> list[RemovedEntry]:
        """Keys of the namespace that have a history and no entry, after ``after``, by key,
        read through the history's index."""
        h = history.c
        query = (
            select(h.key)
            .where(
                h.key > entry_key(namespace, after),
                h.key < _past(namespace),
                ~exists().where(E.key == h.key),
            )
            .group_by(h.key)
            .order_by(h.key)
            .limit(limit)
        )
        with self._db.snapshot() as conn:
            keys = list(conn.execute(query).scalars())
            events = self._histories(conn, keys)
        return [RemovedEntry(key, tuple(events[key])) for key in keys]

    def restore_removed(self, items: Sequence[RemovedEntry]) -> int:
        latest = {i.key: i for i in items}
        if not latest:
            return 0
        with self._db.write() as conn:
            held = set(self._present(conn, list(latest)))
            gone = [key for key in latest if key not in held]
            before = self._histories(conn, gone)
            written = [k for k in gone if tuple(before.get(k, ())) != latest[k].history]
            self._delete(conn, history, written)
            self._db.insert_rows(
                conn,
                history,
                HISTORY,
                [(k, *astuple(h)) for k in written for h in latest[k].history],
            )
        return len(written)

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

    def close(self) -> None:
        """Nothing of its own to release: the database is closed by whoever opened it."""

    def _keys(self, keys: Iterable[str]) -> dict[str, Any]:
        return {"keys": self._db.key_list(list(keys))}

    def _present(self, conn: Connection, keys: Sequence[str]) -> list[str]:
        """The given keys that have a row, in the given order."""
        found = set(conn.scalars(self._sql.present, self._keys(keys))) if keys else set()
        return [key for key in keys if key in found]

    def _append(self, conn: Connection, keys: Iterable[str], at: float) -> None:
        """Log a change of each key (once), in the caller's transaction."""
        unique = list(dict.fromkeys(keys))
        if unique:
            self._db.order_changes(conn)
            self._db.insert_rows(conn, changes, ("key", "at"), [(k, at) for k in unique])

    def _delete(self, conn: Connection, table: Table, keys: Sequence[str]) -> None:
        if keys:
            conn.execute(self._sql.delete[table], self._keys(keys))

    def _set_state(self, conn: Connection, keys: Sequence[str], state: str) -> None:
        if keys:
            conn.execute(self._sql.set_state, {**self._keys(keys), "state": state})

    def _histories(self, conn: Connection, keys: Sequence[str]) -> dict[str, list[HistoryEvent]]:
        found: dict[str, list[HistoryEvent]] = {}
        if keys:
            for key, *event in conn.execute(self._sql.histories, self._keys(keys)):
                found.setdefault(key, []).append(HistoryEvent(*event))
        return found

    def _live_rows(self, conn: Connection, keys: Sequence[str]) -> list[Any]:
        return list(conn.execute(self._sql.live_rows, self._keys(keys))) if keys else []

    def _hydrate(self, conn: Connection, rows: Sequence[Any]) -> dict[str, StoredEntry]:
        """Entries of ``rows`` (holding the ``FIELDS``) with their chunks, by key."""
        found: dict[str, list[Chunk]] = {row.key: [] for row in rows}
        if found:
            for key, number, text, vector in conn.execute(self._sql.chunks_of, self._keys(found)):
                found[key].append(Chunk(key, number, text, unpack(vector)))
        return {
            row.key: StoredEntry(
                row_entry(row._mapping),
                tuple(sorted(found[row.key], key=lambda c: c.number)),
                row.tokens,
            )
            for row in rows
        }


def _past(namespace: str) -> str:
    """The first key past every key of the namespace: its name and the character after the
    colon (namespaces have no colon, and keys compare byte by byte)."""
    return f"{namespace};"


def _under(column: ColumnElement[str], namespace: str) -> ColumnElement[bool]:
    """Keys of the namespace, its erasure key included."""
    return (column >= erasure_key(namespace)) & (column < _past(namespace))
