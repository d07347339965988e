"""The state every part of the fake ledger shares."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import replace

from service.domain.entries import (
    Erasure,
    HistoryEvent,
    Quarantined,
    StoredEntry,
    Supersession,
    key_id,
)
from service.domain.model import Change
from service.domain.model.references import Fit, Reference


class LedgerState:
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
        self.kept_references: dict[str, dict[str, Reference]] = {}
        """By namespace, by id, in the order recorded."""
        self.kept_fits: dict[str, list[Fit]] = {}
        """By namespace, version 1 first."""
        self.fit_in_force: dict[str, int] = {}

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
