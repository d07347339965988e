"""The ledger's ports: the source of truth for entries, cut by what each caller needs of it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Protocol

from service.domain.entries import (
    Entry,
    Erasure,
    ExportedEntry,
    HistoryEvent,
    Quarantined,
    RemovedEntry,
    StoredEntry,
    Supersession,
)
from service.domain.model import Change, ChangeBounds, Matrix, StoredCounts
from service.domain.ports.references import Fits, References


class Entries(Protocol):
    """The entries themselves: written, read whole, removed."""

    def put(
        self,
        stored: Sequence[StoredEntry],
        *,
        actor: str = "",
        action: str | None = None,
        at: float | None = None,
        supersedes: Sequence[tuple[str, str]] = (),
    ) -> list[str]:
        """Durably record entries (replacing same keys) as pending indexing, with history;
        and, in the same transaction, each (older, newer) pair of ``supersedes``: the older
        entry marked replaced (``superseded_by``, a ``superseded`` history event, a change
        logged), kept. An entry's own ``superseded_by`` is never written from ``stored``.

        Returns the keys written whose earlier version the vector index may still hold
        (``entries.vectors_may_remain`` of the row replaced), once each: those whose old
        vectors ``Indexes.index`` must delete. A key new to the ledger is not among them."""
        ...

    def remove(self, keys: Sequence[str], *, actor: str = "", at: float | None = None) -> None:
        """Remove entries for good (their history stays) with the supersessions they take
        part in: an entry every replacement of which is removed is current again
        (``reinstated`` in its history, a change logged)."""
        ...

    def get(self, keys: Sequence[str]) -> dict[str, StoredEntry]:
        """Live entries with their chunks, vectors included: what a rewrite must keep."""
        ...

    def last_in_thread(self, namespace: str, thread: str) -> Entry | None:
        """The entry of the thread written last."""
        ...

    def scan(self, batch: int = 500) -> Iterator[list[StoredEntry]]:
        """Every live entry, in batches, for rebuilding the indexes."""
        ...

    def count(self) -> dict[str, int]:
        """Live entries per tier."""
        ...


class Passages(Protocol):
    """What a search reads of the entries it found."""

    def passages(self, keys: Sequence[str]) -> dict[str, tuple[Entry, tuple[str, ...]]]:
        """Live entries with the texts of their chunks, in order, and no vectors: what a
        search shows of its results."""
        ...

    def vectors(self, keys: Sequence[str]) -> dict[str, Matrix]:
        """The chunk vectors of the entries that have them, one row per chunk, read from
        storage as they are kept, in single precision (deleted entries may still show)."""
        ...


class IndexState(Protocol):
    """How far the indexes are in step with the entries: pending, synced, being deleted or
    set aside."""

    def mark_synced(self, keys: Iterable[str]) -> None: ...

    def mark_deleting(self, keys: Sequence[str]) -> list[str]:
        """Flag existing entries for removal; returns the keys that existed."""
        ...

    def unsynced(self) -> tuple[list[StoredEntry], list[str]]:
        """Entries written but not yet indexed, and keys flagged for removal."""
        ...

    def quarantine(self, reasons: Mapping[str, str], *, at: float) -> None:
        """Set entries that cannot be indexed aside, each with the reason: they leave every
        read (``get``, ``scan``, ``count``, ``unsynced``, ...) until written again or removed."""
        ...

    def quarantined(self, limit: int = 1000) -> list[Quarantined]:
        """The entries set aside, oldest first."""
        ...

    def missing_vectors(self, limit: int = 500) -> list[str]: ...

    def vector_count(self) -> int: ...


class Inventory(Protocol):
    """What the ledger holds, listed for the lifecycle jobs and counted for the status."""

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
        """Keys of one tier's entries (archived or not, of any kind but ``exclude_kind``)
        that expired before ``expires_before`` or are dated before ``older_than``, oldest
        first."""
        ...

    def dated(
        self, namespace: str, tier: str, start: float, end: float, *, archived: bool
    ) -> list[Entry]:
        """The live entries of one namespace and tier dated in ``[start, end)``, archived or
        not as asked, oldest first, without their chunks."""
        ...

    def stats(self) -> list[StoredCounts]:
        """What the live entries hold per namespace, tier and archived or not, one row for
        each that has any, in no order."""
        ...


class History(Protocol):
    def history(self, key: str) -> list[HistoryEvent]:
        """What happened to the entry of ``key``, oldest first (kept after it is removed)."""
        ...


class Relations(Protocol):
    """What ties entries across time: supersessions, histories read together, repeats."""

    def supersessions(self, keys: Sequence[str]) -> list[Supersession]:
        """The supersessions an entry of ``keys`` takes part in, older or newer, oldest
        first."""
        ...

    def histories(self, keys: Sequence[str]) -> dict[str, list[HistoryEvent]]:
        """What happened to each entry of ``keys`` that has a history, oldest first."""
        ...

    def superseded_between(
        self, namespace: str, start: float, end: float, limit: int = 500
    ) -> list[tuple[str, HistoryEvent]]:
        """The entries of ``namespace`` superseded in ``[start, end)``: each key with its
        ``superseded`` event, oldest first, at most ``limit``."""
        ...

    def duplicates(self, wanted: Sequence[Entry]) -> dict[str, str]:
        """For each entry of ``wanted`` repeating a live entry of its namespace (same tier,
        speaker and normalised text, ``service.domain.memory.duplicates``) under another key, the
        id of the one written first."""
        ...


class ChangeLog(Protocol):
    """The changes replicas follow to keep their own indexes in step."""

    def changes(self, after: int, limit: int = 1000) -> list[Change]:
        """Changes with a sequence number above ``after``, in order, at most ``limit``.

        ``put``, ``mark_deleting``, ``remove`` and ``quarantine`` append one change per key
        in the transaction that makes them, so the log holds every committed change and
        nothing else. Sequence numbers grow in commit order: once a reader has seen ``n``,
        no change at or below ``n`` is committed later."""
        ...

    def change_bounds(self) -> ChangeBounds: ...

    def trim_changes(self, before: float) -> int:
        """Drop changes made before ``before`` (raising the horizon); returns how many."""
        ...


class NamespaceEntries(Protocol):
    """A namespace's entries whole: exported, restored from an export, erased."""

    def entry_page(self, namespace: str, after: str, limit: int) -> list[ExportedEntry]:
        """The live entries of ``namespace`` whose id comes after ``after`` (byte order;
        "" for the first page), at most ``limit``, by id, with their chunks, vectors and
        history."""
        ...

    def restore(self, items: Sequence[ExportedEntry]) -> None:
        """Write entries as pending indexing with exactly the given history (what the keys
        had before is replaced), one change each, in one transaction."""
        ...

    def removed_page(self, namespace: str, after: str, limit: int) -> list[RemovedEntry]:
        """The entries of ``namespace`` removed for good (a history and no entry) whose id
        comes after ``after`` (byte order; "" for the first page), at most ``limit``, by
        id, each with its history."""
        ...

    def restore_removed(self, items: Sequence[RemovedEntry]) -> int:
        """Write the history of removed entries exactly as given (what the keys had before
        is replaced), for the keys that hold no entry, in one transaction; a key holding an
        entry, or a history already as given, is left alone. Returns how many were
        written."""
        ...

    def erase(
        self, namespace: str, *, actor: str, at: float, counted: Mapping[str, int]
    ) -> Erasure:
        """Remove everything the ledger holds of ``namespace`` (entries, chunks, history,
        quarantine, its changes), log its erasure as one change (``erasure_key``) for the
        replicas, and record the audit ``Erasure``: its own counts with ``counted`` (what
        other stores removed). One transaction; a namespace with nothing left is recorded
        all the same."""
        ...

    def erasures(self, namespaces: frozenset[str] | None = None, limit: int = 100) -> list[Erasure]:
        """The erasures recorded, newest first: of ``namespaces`` only, unless None."""
        ...


class FollowedLedger(Entries, ChangeLog, Protocol):
    """What a replica reads of the ledger it follows."""


class Ledger(
    Entries,
    Passages,
    IndexState,
    Inventory,
    History,
    Relations,
    ChangeLog,
    NamespaceEntries,
    References,
    Fits,
    Protocol,
):
    """The source of truth for entries: every port above, served by one adapter
    (``service.stores.ledger.SqlLedger``) on SQLite or Postgres."""
