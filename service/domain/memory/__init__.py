"""Every change to stored entries, ledger first, then the derived indexes, in parts of one
concern each: ``Writer`` (new entries), ``Lifecycle`` (archive, promote, delete, ...),
``IndexRepair`` (recover, backfill, rebuild) and ``Transfer`` (a namespace restored or
erased whole). Each part takes only the ports it uses; they share ``Indexes`` and its lock.

``Memory`` is the parts composed over one ``Ledger``, for callers that use them all (the
tests, the benchmarks); the wiring gives every other caller the part it uses."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.domain.entries import Entry, Erasure, ExportedEntry, StoredEntry
from service.domain.memory.indexes import Indexes
from service.domain.memory.lifecycle import BATCH, Lifecycle
from service.domain.memory.outcomes import Committed, Recovered, WriteOutcome
from service.domain.memory.repair import IndexRepair, Progress
from service.domain.memory.transfer import Restored, Transfer
from service.domain.memory.writing import Writer
from service.domain.ports import Embedder, Entries, KeywordStore, Ledger, VectorStore
from service.settings import ChunkingSettings


@dataclass(frozen=True)
class Memory:
    """The parts, composed; each method is its part's."""

    entries: Entries
    indexes: Indexes
    writer: Writer
    lifecycle: Lifecycle
    repair: IndexRepair
    transfer: Transfer

    @classmethod
    def over(
        cls,
        ledger: Ledger,
        vectors: VectorStore,
        keywords: KeywordStore,
        embedder: Embedder | None,
        chunking: ChunkingSettings,
        *,
        clock: Callable[[], float] = time.time,
        on_change: Callable[[Iterable[str]], None] | None = None,
        on_commit: Callable[[Committed], None] | None = None,
        lock: threading.Lock | None = None,
    ) -> Memory:
        """Every part over one ledger, sharing one ``Indexes`` (and its ``lock``)."""
        indexes = Indexes(
            ledger, ledger, vectors, keywords, clock=clock, on_change=on_change, lock=lock
        )
        return cls(
            ledger,
            indexes,
            Writer(
                ledger,
                ledger,
                ledger,
                vectors,
                indexes,
                embedder,
                chunking,
                clock=clock,
                on_commit=on_commit,
            ),
            Lifecycle(ledger, ledger, ledger, vectors, keywords, indexes, chunking, clock=clock),
            IndexRepair(
                ledger, ledger, vectors, keywords, indexes, embedder, chunking, clock=clock
            ),
            Transfer(
                ledger, ledger, ledger, vectors, keywords, indexes, embedder, chunking, clock=clock
            ),
        )

    @property
    def lock(self) -> threading.Lock:
        return self.indexes.lock

    def get(self, key: str) -> StoredEntry | None:
        return self.entries.get([key]).get(key)

    def write(
        self,
        entries: Sequence[Entry],
        actor: str = "",
        *,
        supersedes: Mapping[str, Sequence[str]] | None = None,
        once: Iterable[str] = (),
    ) -> WriteOutcome:
        return self.writer.write(entries, actor, supersedes=supersedes, once=once)

    def prepare(self, entries: Sequence[Entry]) -> list[StoredEntry]:
        return self.writer.prepare(entries)

    def delete(self, keys: Sequence[str], actor: str = "") -> list[str]:
        return self.lifecycle.delete(keys, actor)

    def set_archived(self, keys: Sequence[str], archived: bool, actor: str = "") -> int:
        return self.lifecycle.set_archived(keys, archived, actor)

    def promote(self, keys: Sequence[str], actor: str = "") -> int:
        return self.lifecycle.promote(keys, actor)

    def update_metadata(
        self, keys: Sequence[str], changes: Mapping[str, Any], actor: str = ""
    ) -> int:
        return self.lifecycle.update_metadata(keys, changes, actor)

    def recover(self) -> Recovered:
        return self.repair.recover()

    def backfill(self, batch: int = 256) -> int:
        return self.repair.backfill(batch)

    def rebuild(self, progress: Progress | None = None) -> int:
        return self.repair.rebuild(progress)

    def indexes_match_ledger(self) -> bool:
        return self.repair.indexes_match_ledger()

    def restore(self, items: Sequence[ExportedEntry]) -> None:
        self.transfer.restore(items)

    def erase_namespace(self, namespace: str, actor: str, counted: Mapping[str, int]) -> Erasure:
        return self.transfer.erase_namespace(namespace, actor, counted)


__all__ = [
    "BATCH",
    "IndexRepair",
    "Indexes",
    "Lifecycle",
    "Memory",
    "Progress",
    "Restored",
    "Transfer",
    "Writer",
]
