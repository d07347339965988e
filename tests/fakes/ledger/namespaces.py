"""A namespace's entries whole in the fake ledger: paged, restored, erased."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.domain.entries import (
    Erasure,
    ExportedEntry,
    RemovedEntry,
    entry_key,
    erasure_key,
    key_namespace,
)
from tests.fakes.ledger.state import LedgerState


class FakeNamespaceEntries(LedgerState):
    """A namespace's entries whole (``NamespaceEntries``)."""

    def entry_page(self, namespace: str, after: str, limit: int) -> list[ExportedEntry]:
        start = entry_key(namespace, after)
        keys = sorted(
            k for k in self.entries if self._live(k) and key_namespace(k) == namespace and k > start
        )[:limit]
        return [
            ExportedEntry(
                self.entries[k],
                tuple(self.events.get(k, ())),
                tuple(sorted((r for r in self.relations if r.newer == k), key=lambda r: r.at)),
            )
            for k in keys
        ]

    def restore(self, items: Sequence[ExportedEntry]) -> None:
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
        counts["references"] = len(self.kept_references.pop(namespace, {}))
        self.kept_fits.pop(namespace, None)
        self.fit_in_force.pop(namespace, None)
        self._append([erasure_key(namespace)], at)
        erasure = Erasure(namespace, at, actor, {**counts, **counted})
        self.erased.append(erasure)
        return erasure

    def erasures(self, namespaces: frozenset[str] | None = None, limit: int = 100) -> list[Erasure]:
        shown = [e for e in self.erased if namespaces is None or e.namespace in namespaces]
        return list(reversed(shown))[:limit]
