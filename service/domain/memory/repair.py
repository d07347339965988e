"""Repairing the indexes from the ledger: interrupted changes finished, entries stored
without a model embedded, both indexes rebuilt."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from service.domain.entries import StoredEntry
from service.domain.errors import EngineUnavailable, IndexUnavailable
from service.domain.memory import indexable
from service.domain.memory.outcomes import Recovered
from service.domain.memory.part import Part
from service.domain.ports import Entries, IndexState

log = logging.getLogger(__name__)

Progress = Callable[[int], None]


@dataclass(eq=False)
class IndexRepair(Part):
    """Brings Chroma and Tantivy back in step with the ledger, which holds every
    acknowledged write with its vectors."""

    entries: Entries
    state: IndexState

    def recover(self) -> Recovered:
        """Finish the writes and deletes not yet applied to the indexes (interrupted by a
        crash, or by an index that failed). An entry that cannot be indexed is set aside
        in quarantine with the reason, so that one row never blocks the rest."""
        with self.indexes.lock:
            pending, deleting = self.state.unsynced()
            reasons = {s.entry.key: reason for s in pending if (reason := indexable.problem(s))}
            ready = [s for s in pending if s.entry.key not in reasons]
            # What each entry's earlier version left in the vector index is not known
            # (``index`` deletes every key's vectors).
            reasons |= self._index_each(ready)
            if reasons:
                self.state.quarantine(reasons, at=self.clock())
                for key, reason in reasons.items():
                    log.error("entry %s set aside in quarantine: %s", key, reason)
            if deleting:
                self.indexes.remove(deleting, "recovery")
        done = Recovered(len(pending) - len(reasons), len(deleting), len(reasons))
        if pending or deleting:
            log.info("recovered %s", done)
        return done

    def _index_each(self, stored: list[StoredEntry]) -> dict[str, str]:
        """Index ``stored`` at once or, if that fails, one entry at a time; the entries that
        fail alone while others succeed are returned with the reason. If every one fails,
        the fault is the index's, not theirs: the error is raised and they stay pending."""
        try:
            self.indexes.index(stored)
            return {}
        except EngineUnavailable:
            raise  # the engine's fault, not the entries'
        except Exception:
            if len(stored) == 1:
                raise
        failed: dict[str, str] = {}
        for s in stored:
            try:
                self.indexes.index([s])
            except Exception as exc:
                failed[s.entry.key] = f"indexing failed ({type(exc).__name__}: {exc})"
        if len(failed) == len(stored):
            raise IndexUnavailable(f"no entry of {len(stored)} could be indexed")
        return failed

    def backfill(self, batch: int = 256) -> int:
        """Embed tier A and C entries written while no model was loaded."""
        if not self.preparer.has_model:
            return 0
        done = 0
        while keys := self.state.missing_vectors(batch):
            entries = [s.entry for s in self.entries.get(keys).values()]
            stored = self.preparer.prepare(entries)
            with self.indexes.lock:
                current = self.entries.get(keys)
                # Skip entries rewritten or deleted while this batch was being embedded.
                fresh = [
                    s
                    for s in stored
                    if (now := current.get(s.entry.key)) is not None and now.entry == s.entry
                ]
                stale = self.entries.put(
                    fresh, action="embedded", actor="backfill", at=self.clock()
                )
                self.indexes.index(fresh, stale)
            done += len(fresh)
            if not fresh:
                break
        return done

    def indexes_match_ledger(self) -> bool:
        """Whether Chroma and Tantivy hold as many records as the ledger says they should."""
        return self.indexes.match_ledger()

    def rebuild(self, progress: Progress | None = None) -> int:
        """Re-derive Chroma and Tantivy from the ledger without re-embedding.

        Searches keep working throughout: Tantivy swaps in the new documents with one
        commit; Chroma is rewritten a batch of entries at a time and orphans removed last.
        Writes wait until the rebuild is done.
        """
        total = 0
        with self.indexes.lock:
            seen: set[str] = set()
            aside: dict[str, str] = {}

            def batches() -> Iterator[list[StoredEntry]]:
                nonlocal total
                for scanned in self.entries.scan():
                    batch = []
                    for s in scanned:
                        if reason := indexable.problem(s):
                            aside[s.entry.key] = reason
                        else:
                            batch.append(s)
                    seen.update(s.entry.namespace for s in batch)
                    yield batch
                    # Counted once both indexes have taken the batch.
                    total += len(batch)
                    if progress:
                        progress(total)

            self.indexes.replace_all(batches())
            if aside:
                self.state.quarantine(aside, at=self.clock())
            self.indexes.changed(seen)
        return total
