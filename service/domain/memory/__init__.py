"""Every change to stored entries, ledger first, then the derived indexes, in parts of one
concern each: ``Writer`` (new entries), ``Lifecycle`` (archive, promote, delete, ...),
``IndexRepair`` (recover, backfill, rebuild) and ``Transfer`` (a namespace restored or
erased whole).

Each part is a ``Part``: two collaborators it shares with the others and the clock, then
the ledger ports it uses. ``Indexes`` is the one holder of the vector and keyword stores
(and of the lock every change holds from the ledger to the indexes); ``Preparer`` the one
holder of the model and the chunking (entries chunked, embedded, their tokens counted,
their bounds checked).

``Memory`` is the parts composed over one ``Ledger``, for callers that use them all (the
tests, the benchmarks); the wiring gives every other caller the part it uses."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.domain.memory.indexes import Indexes
from service.domain.memory.lifecycle import BATCH, Lifecycle
from service.domain.memory.outcomes import Committed
from service.domain.memory.part import Part
from service.domain.memory.preparation import Preparer
from service.domain.memory.repair import IndexRepair, Progress
from service.domain.memory.transfer import Restored, Transfer
from service.domain.memory.writing import Writer
from service.domain.ports import Entries, Ledger


@dataclass(frozen=True)
class Memory:
    """The parts, composed."""

    entries: Entries
    indexes: Indexes
    preparer: Preparer
    writer: Writer
    lifecycle: Lifecycle
    repair: IndexRepair
    transfer: Transfer

    @classmethod
    def over(
        cls,
        ledger: Ledger,
        indexes: Indexes,
        preparer: Preparer,
        on_commit: Callable[[Committed], None] | None = None,
    ) -> Memory:
        """Every part over one ledger, sharing ``indexes`` (lock, clock) and ``preparer``."""
        clock = indexes.clock
        return cls(
            ledger,
            indexes,
            preparer,
            Writer(indexes, preparer, ledger, ledger, ledger, clock=clock, on_commit=on_commit),
            Lifecycle(indexes, preparer, ledger, ledger, ledger, clock=clock),
            IndexRepair(indexes, preparer, ledger, ledger, clock=clock),
            Transfer(indexes, preparer, ledger, ledger, ledger, clock=clock),
        )


__all__ = [
    "BATCH",
    "IndexRepair",
    "Indexes",
    "Lifecycle",
    "Memory",
    "Part",
    "Preparer",
    "Progress",
    "Restored",
    "Transfer",
    "Writer",
]
