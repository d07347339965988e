"""The fake ledger's entries, and what a search reads of them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from service.domain.entries import Entry, StoredEntry, Supersession, key_id, vectors_may_remain
from service.domain.model import Matrix
from tests.fakes.ledger.state import LedgerState


class FakeEntries(LedgerState):
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
        if not stored:
            return []
        existing = {s.entry.key for s in stored if s.entry.key in self.entries}
        held = [
            key
            for key in dict.fromkeys(s.entry.key for s in stored)
            if key in existing
            and vectors_may_remain(
                self.states[key], self.entries[key].entry.tier, self.entries[key].entry.archived
            )
        ]
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
        return held

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


class FakePassages(LedgerState):
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
