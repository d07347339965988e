"""A namespace moved whole: entries restored from an export as they were, and a namespace
erased from every store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from service.domain.memory import Memory
from service.domain.models import ArchivedEntry, Erasure, Supersession
from service.domain.ports import Compaction, NamespaceCatalog, NamespaceInteractions


@dataclass(frozen=True)
class Restored:
    written: int
    unchanged: int
    """Entries the ledger held already as given: left alone."""
    embedded: int
    """Entries written whose vectors were made again."""


def restore_entries(memory: Memory, items: Sequence[ArchivedEntry]) -> Restored:
    """Write exported entries with their history, ids and times as they were.

    An entry given with chunks keeps them, vectors included; one without is chunked again
    and, in tiers A and C, embedded (without a model it waits for the backfill, as a write
    does). An entry the ledger holds already as given (its fields, history, and chunks when
    given) is not written again: restoring the same entries twice changes nothing, and
    costs no model call the second time."""
    keys = [i.stored.entry.key for i in items]
    held = memory.ledger.get(keys)
    histories = memory.ledger.histories(keys)
    replaced: dict[str, list[Supersession]] = {}
    for relation in memory.ledger.supersessions(keys):
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
    made = iter(memory.prepare_kept([i.stored.entry for i in bare]))
    ready = [replace(i, stored=next(made)) if not i.stored.chunks else i for i in changed]
    memory.restore(ready)
    embedded = sum(1 for i in bare if i.stored.entry.embedded)
    return Restored(len(ready), len(items) - len(ready), embedded)


def _order(relation: Supersession) -> tuple[float, str]:
    return relation.at, relation.older


def erase_namespace(
    namespace: str,
    actor: str,
    memory: Memory,
    catalog: NamespaceCatalog,
    interactions: NamespaceInteractions,
    compaction: Compaction,
) -> Erasure:
    """Remove every trace of a namespace: its interactions and feedback, its collections
    and their files, then its entries with their chunks, history and quarantine, its
    vectors and its keyword documents (``Memory.erase_namespace``); then compact the
    databases so none of it stays in their files. Leaves the audit record it returns."""
    asked, given = interactions.erase(namespace)
    collections, files = catalog.erase(namespace)
    counted = {
        "interactions": asked,
        "feedback": given,
        "collections": collections,
        "files": files,
    }
    erasure = memory.erase_namespace(namespace, actor, counted)
    compaction.compact()
    return erasure
