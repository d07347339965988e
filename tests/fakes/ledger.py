"""An in-memory ledger."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace

import numpy as np

from service.domain.duplicates import fingerprint
from service.domain.models import (
    EMBEDDED_TIERS,
    ArchivedEntry,
    Change,
    ChangeBounds,
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
    key_namespace,
)
from service.domain.similarity import Matrix
from service.domain.stats import StoredCounts


class _LedgerState:
    """Entries by key with their state: ``pending``, ``synced``, ``deleting`` or
    ``quarantined`` (with the reason); the history of every key, kept after the entry is
    removed; and the change log, numbered from 1."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.entries: dict[str, StoredEntry] = {}
        self.states: dict[str, str] = {}
        self.events: dict[str, list[HistoryEvent]] = {}
        self.reasons: dict[str, Quarantined] = {}
        self.clock = clock
        """Time of history events recorded without ``at`` (the real ledger uses time.time)."""
        self.scan_batch = 500
        """Batch size of ``scan`` when the caller gives none."""
        self.reads: list[tuple[str, list[str]]] = []
        """Every ``get``, ``passages`` and ``vectors`` call, in order: which read, which keys."""
        self.log: list[Change] = []
        self.horizon = 0
        self.last_seq = 0
        self.erased: list[Erasure] = []
        self.relations: list[Supersession] = []
        """Current supersessions, in the order made."""

    def _record(
        self, key: str, action: str, actor: str, at: float | None, detail: str | None = None
    ) -> None:
        when = self.clock() if at is None else at
        self.events.setdefault(key, []).append(HistoryEvent(when, action, actor, detail))

    def _mark(self, key: str) -> None:
        """Set ``superseded_by`` of the entry of ``key`` from the relations (the latest)."""
        stored = self.entries.get(key)
        if stored is None:
            return
        newer = [r.newer for r in self.relations if r.older == key]
        marked = replace(stored.entry, superseded_by=key_id(newer[-1]) if newer else None)
        self.entries[key] = StoredEntry(marked, stored.chunks, stored.tokens)

    def _append(self, keys: Iterable[str], at: float | None) -> None:
        when = self.clock() if at is None else at
        for key in dict.fromkeys(keys):
            self.last_seq += 1
            self.log.append(Change(self.last_seq, key, when))

    def _live(self, key: str) -> bool:
        return key in self.entries and self.states[key] in ("pending", "synced")


class FakeEntries(_LedgerState):
    """The entries themselves (``Entries``)."""

    def put(
        self,
        stored: Sequence[StoredEntry],
        *,
        actor: str = "",
        action: str | None = None,
        at: float | None = None,
        supersedes: Sequence[tuple[str, str]] = (),
    ) -> None:
        if not stored:
            return
        existing = {s.entry.key for s in stored if s.entry.key in self.entries}
        older = [old for old, _ in supersedes if old in self.entries]
        for s in stored:
            key = s.entry.key
            self.entries.pop(key, None)  # a rewrite arrives last, as a new row does
            self.entries[key] = s
            self._mark(key)
            self.states[key] = "pending"
            self.reasons.pop(key, None)
            self._record(key, action or ("updated" if key in existing else "created"), actor, at)
        when = self.clock() if at is None else at
        replaced: list[str] = []
        for old, new in dict.fromkeys(supersedes):
            if old == new or old not in older:
                continue
            if not any(r.older == old and r.newer == new for r in self.relations):
                self.relations.append(Supersession(old, new, when, actor))
            self._record(old, "superseded", actor, at, key_id(new))
            self._mark(old)
            replaced.append(old)
        self._append([*(s.entry.key for s in stored), *replaced], at)

    def remove(self, keys: Sequence[str], *, actor: str = "", at: float | None = None) -> None:
        present = [k for k in keys if k in self.entries]
        for key in keys:
            self.entries.pop(key, None)
            self.states.pop(key, None)
            self.reasons.pop(key, None)
            self._record(key, "deleted", actor, at)
        gone = set(present)
        replaced = [r for r in self.relations if r.newer in gone and r.older not in gone]
        self.relations = [r for r in self.relations if r.older not in gone and r.newer not in gone]
        older = list(dict.fromkeys(r.older for r in replaced))
        for old in older:
            self._mark(old)
            if self.entries[old].entry.superseded_by is None:
                last = [r.newer for r in replaced if r.older == old][-1]
                self._record(old, "reinstated", actor, at, key_id(last))
        self._append([*present, *older], at)

    def get(self, keys: Sequence[str]) -> dict[str, StoredEntry]:
        self.reads.append(("get", list(keys)))
        return {k: self.entries[k] for k in keys if self._live(k)}

    def last_in_thread(self, namespace: str, thread: str) -> Entry | None:
        for key, s in reversed(self.entries.items()):
            if s.entry.namespace == namespace and s.entry.thread == thread and self._live(key):
                return s.entry
        return None

    def scan(self, batch: int | None = None) -> Iterator[list[StoredEntry]]:
        size = batch or self.scan_batch
        entries = [self.entries[k] for k in sorted(self.entries) if self._live(k)]
        for start in range(0, len(entries), size):
            yield entries[start : start + size]

    def count(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for key, s in self.entries.items():
            if self._live(key):
                counts[s.entry.tier] = counts.get(s.entry.tier, 0) + 1
        return counts


class FakePassages(_LedgerState):
    """What a search reads (``Passages``)."""

    def passages(self, keys: Sequence[str]) -> dict[str, tuple[Entry, tuple[str, ...]]]:
        self.reads.append(("passages", list(keys)))
        return {
            k: (
                self.entries[k].entry,
                tuple(c.text for c in sorted(self.entries[k].chunks, key=lambda c: c.number)),
            )
            for k in keys
            if self._live(k)
        }

    def vectors(self, keys: Sequence[str]) -> dict[str, Matrix]:
        """As SQLite reads them: the chunks that have a vector, whatever the entry's state,
        as one float32 matrix per entry."""
        self.reads.append(("vectors", list(keys)))
        found: dict[str, Matrix] = {}
        for key in keys:
            stored = self.entries.get(key)
            vectors = [c.vector for c in stored.chunks if c.vector is not None] if stored else []
            if vectors:  # of one size, as SQLite keeps them
                same = [v for v in vectors if len(v) == len(vectors[0])]
                found[key] = np.asarray(same, dtype=np.float32).reshape(len(same), len(same[0]))
        return found


class FakeIndexState(_LedgerState):
    """Entry states (``IndexState``)."""

    def mark_synced(self, keys: Iterable[str]) -> None:
        for key in keys:
            if key in self.states:
                self.states[key] = "synced"

    def mark_deleting(self, keys: Sequence[str]) -> list[str]:
        existing = [k for k in keys if k in self.entries]
        for key in existing:
            self.states[key] = "deleting"
        self._append(existing, None)
        return existing

    def unsynced(self) -> tuple[list[StoredEntry], list[str]]:
        pending = [s for k, s in self.entries.items() if self.states[k] == "pending"]
        deleting = [k for k in self.entries if self.states[k] == "deleting"]
        return pending, deleting

    def quarantine(self, reasons: Mapping[str, str], *, at: float) -> None:
        self._append((k for k in reasons if k in self.entries), at)
        for key, reason in reasons.items():
            if key in self.entries:
                self.states[key] = "quarantined"
                self.reasons[key] = Quarantined(key, reason, at)

    def quarantined(self, limit: int = 1000) -> list[Quarantined]:
        aside = [q for k, q in self.reasons.items() if self.states.get(k) == "quarantined"]
        return sorted(aside, key=lambda q: (q.at, q.key))[:limit]

    def missing_vectors(self, limit: int = 500) -> list[str]:
        found = [
            key
            for key, s in self.entries.items()
            if self._live(key)
            and s.entry.tier in EMBEDDED_TIERS
            and any(c.vector is None for c in s.chunks)
        ]
        return found[:limit]

    def vector_count(self) -> int:
        return sum(
            1
            for key, s in self.entries.items()
            if self._live(key) and s.entry.tier in EMBEDDED_TIERS and not s.entry.archived
            for c in s.chunks
            if c.vector is not None
        )


class FakeInventory(_LedgerState):
    """Worklists and counts (``Inventory``)."""

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
        found = [
            key
            for key, s in self.entries.items()
            if self._live(key)
            and s.entry.tier == tier
            and s.entry.archived == archived
            and s.entry.kind != exclude_kind
            and (
                expires_before is None
                or (s.entry.expires_at is not None and s.entry.expires_at <= expires_before)
            )
            and (older_than is None or s.entry.timestamp < older_than)
        ]
        return sorted(found, key=lambda k: (self.entries[k].entry.timestamp, k))[:limit]

    def dated(
        self, namespace: str, tier: str, start: float, end: float, *, archived: bool
    ) -> list[Entry]:
        found = [
            s.entry
            for key, s in self.entries.items()
            if self._live(key)
            and s.entry.namespace == namespace
            and s.entry.tier == tier
            and s.entry.archived == archived
            and start <= s.entry.timestamp < end
        ]
        return sorted(found, key=lambda e: (e.timestamp, e.key))

    def stats(self) -> list[StoredCounts]:
        groups: dict[tuple[str, str, bool], list[int]] = {}
        for key, s in self.entries.items():
            if not self._live(key):
                continue
            e = s.entry
            row = groups.setdefault((e.namespace, e.tier, e.archived), [0, 0, 0, 0])
            vectors = sum(1 for c in s.chunks if c.vector is not None)
            row[0] += 1
            row[1] += vectors
            row[2] += s.tokens if vectors else 0
            row[3] += s.tokens
        return [StoredCounts(*group, *counts) for group, counts in sorted(groups.items())]


class FakeHistory(_LedgerState):
    """``History`` and ``Relations``."""

    def history(self, key: str) -> list[HistoryEvent]:
        return sorted(self.events.get(key, []), key=lambda e: e.at)

    def histories(self, keys: Sequence[str]) -> dict[str, list[HistoryEvent]]:
        return {k: self.history(k) for k in dict.fromkeys(keys) if k in self.events}

    def supersessions(self, keys: Sequence[str]) -> list[Supersession]:
        wanted = set(keys)
        mine = [r for r in self.relations if r.older in wanted or r.newer in wanted]
        return sorted(mine, key=lambda r: (r.at, r.older, r.newer))

    def superseded_between(
        self, namespace: str, start: float, end: float, limit: int = 500
    ) -> list[tuple[str, HistoryEvent]]:
        found = [
            (key, e)
            for key, events in self.events.items()
            if key_namespace(key) == namespace
            for e in events
            if e.action == "superseded" and start <= e.at < end
        ]
        return sorted(found, key=lambda pair: pair[1].at)[:limit]

    def duplicates(self, wanted: Sequence[Entry]) -> dict[str, str]:
        found: dict[str, str] = {}
        for e in wanted:
            mine = (e.namespace, fingerprint(e))
            for key, s in self.entries.items():
                same = (s.entry.namespace, fingerprint(s.entry)) == mine
                if same and key != e.key and self._live(key):
                    found[e.key] = s.entry.id
                    break
        return found


class FakeChangeLog(_LedgerState):
    """The change log, numbered from 1 (``ChangeLog``)."""

    def changes(self, after: int, limit: int = 1000) -> list[Change]:
        return [c for c in self.log if c.seq > after][:limit]

    def change_bounds(self) -> ChangeBounds:
        return ChangeBounds(self.horizon, max(self.horizon, self.last_seq))

    def trim_changes(self, before: float) -> int:
        old = [c.seq for c in self.log if c.at < before]
        if not old:
            return 0
        kept = [c for c in self.log if c.seq > max(old)]
        dropped = len(self.log) - len(kept)
        self.log, self.horizon = kept, max(self.horizon, max(old))
        return dropped


class FakeNamespaceEntries(_LedgerState):
    """A namespace's entries whole (``NamespaceEntries``)."""

    def entry_page(self, namespace: str, after: str, limit: int) -> list[ArchivedEntry]:
        start = entry_key(namespace, after)
        keys = sorted(
            k for k in self.entries if self._live(k) and key_namespace(k) == namespace and k > start
        )[:limit]
        return [
            ArchivedEntry(
                self.entries[k],
                tuple(self.events.get(k, ())),
                tuple(sorted((r for r in self.relations if r.newer == k), key=lambda r: r.at)),
            )
            for k in keys
        ]

    def restore(self, items: Sequence[ArchivedEntry]) -> None:
        for item in items:
            key = item.stored.entry.key
            self.entries.pop(key, None)
            self.entries[key] = item.stored
            self.states[key] = "pending"
            self.reasons.pop(key, None)
            self.events[key] = list(item.history)
        restored = {i.stored.entry.key for i in items}
        given = [r for i in items for r in i.supersedes]
        kept = [r for r in self.relations if r.newer not in restored]
        freed = [r.older for r in self.relations if r.newer in restored]
        known = {(r.older, r.newer) for r in kept}
        self.relations = [*kept, *(r for r in given if (r.older, r.newer) not in known)]
        touched = list(dict.fromkeys([*restored, *freed, *(r.older for r in given)]))
        for key in touched:
            self._mark(key)
        self._append(touched, None)

    def removed_page(self, namespace: str, after: str, limit: int) -> list[RemovedEntry]:
        start = entry_key(namespace, after)
        keys = sorted(
            k
            for k in self.events
            if k not in self.entries and key_namespace(k) == namespace and k > start
        )[:limit]
        return [RemovedEntry(k, tuple(self.events[k])) for k in keys]

    def restore_removed(self, items: Sequence[RemovedEntry]) -> int:
        latest = {i.key: i for i in items}
        written = [
            k
            for k, i in latest.items()
            if k not in self.entries and tuple(self.events.get(k, ())) != i.history
        ]
        for key in written:
            self.events[key] = list(latest[key].history)
        return len(written)

    def erase(
        self, namespace: str, *, actor: str, at: float, counted: Mapping[str, int]
    ) -> Erasure:
        def mine(key: str) -> bool:
            return key_namespace(key) == namespace

        counts = {
            "entries": sum(1 for k in self.entries if mine(k)),
            "history": sum(len(v) for k, v in self.events.items() if mine(k)),
            "quarantined": sum(1 for k in self.reasons if mine(k)),
            "changes": sum(1 for c in self.log if mine(c.key)),
        }
        for table in (self.entries, self.states, self.events, self.reasons):
            for key in [k for k in table if mine(k)]:
                del table[key]
        self.log = [c for c in self.log if not mine(c.key)]
        self.relations = [r for r in self.relations if not mine(r.older)]
        self._append([erasure_key(namespace)], at)
        erasure = Erasure(namespace, at, actor, {**counts, **counted})
        self.erased.append(erasure)
        return erasure

    def erasures(self, namespaces: frozenset[str] | None = None, limit: int = 100) -> list[Erasure]:
        shown = [e for e in self.erased if namespaces is None or e.namespace in namespaces]
        return list(reversed(shown))[:limit]


class FakeLedger(
    FakeEntries,
    FakePassages,
    FakeIndexState,
    FakeInventory,
    FakeHistory,
    FakeChangeLog,
    FakeNamespaceEntries,
):
    """Every port of the ledger on one in-memory state, as ``SqlLedger`` serves them."""
