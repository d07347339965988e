"""A namespace's entries moved whole: restored from an export as they were, or erased from
the ledger and both indexes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from service.domain.entries import Erasure, ExportedEntry, Supersession
from service.domain.memory.part import Part
from service.domain.ports import Entries, NamespaceEntries, Relations


@dataclass(eq=False)
class Transfer(Part):
    """Writes entries whole (an import) and erases namespaces, under the write lock."""

    entries: Entries
    relations: Relations
    namespaces: NamespaceEntries

    def restore_entries(self, items: Sequence[ExportedEntry]) -> Restored:
        """Write exported entries with their history, ids and times as they were.

        An entry given with chunks keeps them, vectors included; one without is chunked
        again and, in tiers A and C, embedded (without a model it waits for the backfill, as
        a write does). An entry the ledger holds already as given (its fields, history, and
        chunks when given) is not written again: restoring the same entries twice changes
        nothing, and costs no model call the second time."""
        keys = [i.stored.entry.key for i in items]
        held = self.entries.get(keys)
        histories = self.relations.histories(keys)
        replaced: dict[str, list[Supersession]] = {}
        for relation in self.relations.supersessions(keys):
            replaced.setdefault(relation.newer, []).append(relation)
        changed = []
        for item in items:
            key = item.stored.entry.key
            now = held.get(key)
            same = (
                now is not None
                # What replaced it is the ledger's to say, from the supersessions restored.
                and replace(now.entry, superseded_by=None) == item.stored.entry
                and tuple(histories.get(key, ())) == item.history
                and sorted(replaced.get(key, []), key=_order) == sorted(item.supersedes, key=_order)
                and (not item.stored.chunks or now.chunks == item.stored.chunks)
            )
            if not same:
                changed.append(item)
        bare = [i for i in changed if not i.stored.chunks]
        made = iter(self.preparer.prepare_kept([i.stored.entry for i in bare]))
        ready = [replace(i, stored=next(made)) if not i.stored.chunks else i for i in changed]
        self.restore(ready)
        embedded = sum(1 for i in bare if i.stored.entry.embedded)
        return Restored(len(ready), len(items) - len(ready), embedded)

    def restore(self, items: Sequence[ExportedEntry]) -> None:
        """Write entries whole, chunks and history as given (an import), and index them;
        InvalidInput, and nothing written, for an entry out of bounds."""
        self.preparer.check([i.stored.entry for i in items])
        if items:
            with self.indexes.lock:
                self.namespaces.restore(items)
                self.indexes.index([i.stored for i in items])

    def erase_namespace(self, namespace: str, actor: str, counted: Mapping[str, int]) -> Erasure:
        """Remove the namespace from the ledger, the vectors and the keyword index (whose
        files of the namespace go whole). A failure after the ledger's part leaves the
        indexes with entries the ledger has not: an erasure run again finishes them (and a
        rebuild would drop them)."""
        with self.indexes.lock:
            erasure = self.namespaces.erase(
                namespace, actor=actor, at=self.clock(), counted=counted
            )
            self.indexes.erase_namespace(namespace)
        return erasure


def _order(relation: Supersession) -> tuple[float, str]:
    return relation.at, relation.older


@dataclass(frozen=True)
class Restored:
    """What ``Transfer.restore_entries`` wrote."""

    written: int
    unchanged: int
    """Entries the ledger held already as given: left alone."""
    embedded: int
    """Entries written whose vectors were made again."""
