"""What the domain needs from the outside world. Adapters live in ``service.stores``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from service.domain.collections import Collection, IndexedFile
    from service.domain.folders import Listing
    from service.domain.recall import UpstreamHit

from service.domain.interactions import Feedback, Interaction
from service.domain.models import (
    ArchivedEntry,
    Change,
    ChangeBounds,
    Chunk,
    Entry,
    Erasure,
    Filters,
    HistoryEvent,
    Hit,
    JobRun,
    Quarantined,
    RemovedEntry,
    StoredEntry,
    Supersession,
    Tier,
)
from service.domain.similarity import Matrix


class Embedder(Protocol):
    name: str
    backend: str
    """What runs the model (torch, onnx, onnx-int8)."""
    dimension: int

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        """Unit-length vectors, one per text, in order."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Model tokens each text costs to embed (up to the model's window)."""
        ...


class VectorStore(Protocol):
    def upsert(self, stored: Sequence[StoredEntry]) -> None:
        """Index the chunks of embedded entries in their tier's collection."""
        ...

    def delete(self, keys: Sequence[str]) -> None:
        """Remove every chunk of these entries from every collection."""
        ...

    def search(
        self, tier: Tier, vector: Sequence[float], filters: Filters, limit: int
    ) -> list[Hit]:
        """Best entries of one tier by cosine similarity (score in [-1, 1]), one hit per entry.

        Tier C entries past their ``expires_at`` may be among them until the expiry job
        drops them; callers check expiry."""
        ...

    def count(self, tier: Tier) -> int: ...

    def entry_keys(self) -> set[str]:
        """Every entry key with a vector in any collection."""
        ...

    def delete_expired(self, now: float) -> None:
        """Drop tier C vectors whose ``expires_at`` has passed."""
        ...

    def erase_namespace(self, namespace: str) -> None:
        """Remove every record of the namespace, and, where the store's files are this
        process's own, the bytes they took (compacted, nothing left to read back)."""
        ...

    def clear(self) -> None: ...

    def health(self) -> str: ...


class KeywordStore(Protocol):
    def apply(self, upserts: Sequence[StoredEntry], deletes: Sequence[str]) -> None:
        """Replace or add ``upserts`` and remove ``deletes`` in one commit, visible on return."""
        ...

    def search(self, text: str, filters: Filters, limit: int) -> list[Hit]:
        """BM25 ranking of entries matching ``filters``, one hit per entry; for an entry found
        by passage (``texts.found_by_passage``), its best chunk's score and number. No query
        syntax is interpreted."""
        ...

    def score_bound(self, text: str) -> float:
        """An upper bound of the score ``search`` gives an entry for ``text`` (0: no terms)."""
        ...

    def replace_all(self, batches: Iterable[Sequence[StoredEntry]]) -> None:
        """Swap the whole index for these entries, visible at once when done."""
        ...

    def optimize(self) -> None:
        """Merge segments and collect garbage."""
        ...

    def count(self) -> int:
        """The entries indexed (not their passages)."""
        ...

    def clear(self) -> None: ...


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
    ) -> None:
        """Durably record entries (replacing same keys) as pending indexing, with history;
        and, in the same transaction, each (older, newer) pair of ``supersedes``: the older
        entry marked replaced (``superseded_by``, a ``superseded`` history event, a change
        logged), kept. An entry's own ``superseded_by`` is never written from ``stored``."""
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

    def stats(self) -> list[tuple[str, str, bool, int, int, int, int]]: ...


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
        speaker and normalised text, ``service.domain.duplicates``) under another key, the
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

    def entry_page(self, namespace: str, after: str, limit: int) -> list[ArchivedEntry]:
        """The live entries of ``namespace`` whose id comes after ``after`` (byte order;
        "" for the first page), at most ``limit``, by id, with their chunks, vectors and
        history."""
        ...

    def restore(self, items: Sequence[ArchivedEntry]) -> None:
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
    Protocol,
):
    """The source of truth for entries: every port above, served by one adapter
    (``service.stores.ledger.SqlLedger``) on SQLite or Postgres."""


class RunLog(Protocol):
    """The runs of the lifecycle jobs, shared by every replica of a cluster."""

    def start(self, job: str, replica: str, at: float, slot: float | None = None) -> int | None:
        """Record a run as started and return its id; None, and nothing recorded, when a
        run of ``job`` for this ``slot`` (a scheduled time) was started already."""
        ...

    def finish(
        self, run: int, at: float, result: Mapping[str, Any] | None, error: str | None
    ) -> None: ...

    def last(self) -> dict[str, JobRun]:
        """The latest run of each job that ever ran."""
        ...

    def runs(self, job: str, limit: int = 20) -> list[JobRun]:
        """The runs of ``job``, newest first."""
        ...


class SignedOutSessions(Protocol):
    """Console sessions ended by signing out before they expired, shared by every replica:
    a cookie of one is refused wherever it is presented."""

    def sign_out(self, session: str, until: float, now: float) -> None:
        """Refuse the session of id ``session`` from now on. Its record may go at ``until``
        (when the session expires anyway); records past their time at ``now`` go here."""
        ...

    def signed_out(self, session: str) -> bool:
        """Whether the session of id ``session`` was signed out of."""
        ...


class Coordination(Protocol):
    """Who of the processes sharing one ledger does what."""

    def lead(self) -> bool:
        """Try to become (or stay) the one process that runs the scheduled jobs; True while
        this process leads. Leadership ends with the process or its database connection."""
        ...

    def job_lock(self, job: str) -> AbstractContextManager[bool]:
        """Hold the one lock of ``job`` shared by every process for the block; the block is
        given False, without waiting, when another run holds it."""
        ...

    def close(self) -> None: ...


class Checkpoint(Protocol):
    """Where a replica keeps the last change of the ledger its own index has applied."""

    def load(self) -> int | None:
        """The sequence number saved last; None when none was saved (or it is unreadable)."""
        ...

    def save(self, seq: int) -> None:
        """Keep ``seq``, replacing what was saved, whole or not at all."""
        ...


class Reranker(Protocol):
    name: str

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """Relevance of each passage to the query, in [0, 1]."""
        ...


class NamespaceCatalog(Protocol):
    """A namespace's collections and files, for its export, import and erasure."""

    def file_page(
        self, collection_id: str, after: str, limit: int
    ) -> list[tuple[IndexedFile, str | None]]:
        """The files of a collection whose path comes after ``after`` (byte order), at most
        ``limit``, by path, each with the text it was indexed from."""
        ...

    def restore(self, c: Collection) -> None:
        """Add the collection, or replace the one of the same id."""
        ...

    def erase(self, namespace: str) -> tuple[int, int]:
        """Remove the namespace's collections and their files; returns how many of each."""
        ...


class Catalog(NamespaceCatalog, Protocol):
    """Registered file collections and the files indexed from each."""

    def add(self, c: Collection) -> None: ...

    def get(self, namespace: str, name: str) -> Collection | None:
        """The collection of that name in ``namespace``: names are unique per namespace."""
        ...

    def named(self, name: str) -> list[Collection]:
        """The collections of that name, one per namespace holding one, by namespace."""
        ...

    def all(self) -> list[Collection]: ...

    def rename(self, collection_id: str, new: str) -> None: ...

    def remove(self, collection_id: str) -> None: ...

    def scanned(self, collection_id: str, at: float) -> None: ...

    def files(self, collection_id: str) -> dict[str, IndexedFile]: ...

    def file(self, collection_id: str, path: str) -> IndexedFile | None:
        """The file indexed at ``path`` (as a scan listed it) in the collection, if any."""
        ...

    def set_file(self, collection_id: str, indexed: IndexedFile, text: str) -> None:
        """Record a file as indexed, with the text it was indexed from."""
        ...

    def text(self, collection_id: str, path: str) -> str | None:
        """The text the file at ``path`` was indexed from; None when it is not indexed."""
        ...

    def remove_file(self, collection_id: str, path: str) -> None: ...


class NamespaceInteractions(Protocol):
    """A namespace's interactions and feedback, for its export, import and erasure."""

    def interaction_page(
        self, namespace: str, after: int, limit: int
    ) -> list[tuple[int, Interaction]]:
        """Interactions logged after the one numbered ``after`` (0: from the first), at most
        ``limit``, in the order logged, each with its number."""
        ...

    def feedback_page(self, namespace: str, after: int, limit: int) -> list[tuple[int, Feedback]]:
        """Feedback on the namespace's interactions given after the one numbered ``after``,
        at most ``limit``, in the order given, each with its number."""
        ...

    def counted(self, namespace: str) -> tuple[int, int]:
        """Interactions and feedback the namespace has."""
        ...

    def restore(self, interactions: Sequence[Interaction], feedback: Sequence[Feedback]) -> int:
        """Log the interactions whose id is not logged yet and the feedback not given yet
        (the same interaction, time, rating, comment and actor), in order; returns how
        many rows were added."""
        ...

    def erase(self, namespace: str) -> tuple[int, int]:
        """Remove the namespace's interactions and the feedback on them; returns how many
        of each."""
        ...


class InteractionLog(NamespaceInteractions, Protocol):
    """Every retrieve, and the feedback given on it."""

    def record(self, interaction: Interaction) -> None: ...

    def get(self, interaction_id: str) -> Interaction | None: ...

    def add_feedback(self, feedback: Feedback) -> None: ...

    def between(
        self, namespace: str, start: float, end: float
    ) -> tuple[list[Interaction], list[Feedback]]:
        """Interactions asked, and feedback given, in ``[start, end)``, oldest first."""
        ...


class Compaction(Protocol):
    """Gives the space of removed rows back, so what was removed is in no file any more."""

    def compact(self) -> None: ...


class Files(Protocol):
    """The server's own files, read only under a collection's root, never outside it."""

    def folder(self, path: str) -> str | None:
        """The absolute real path of ``path`` when it is an existing folder, else None."""
        ...

    def list(self, root: str, mask: str, *, limit: int | None = None) -> Listing:
        """The regular files under ``root`` matching the glob ``mask`` (as
        ``service.domain.globs`` reads it), as relative POSIX paths, sorted; those whose real
        location is outside ``root``, and what cannot be listed, are ``skipped`` with the
        reason. With ``limit``, the listing stops once more than ``limit`` paths (listed or
        skipped) match, and is not ``complete``; which paths it then holds is undefined."""
        ...

    def size(self, root: str, relative: str) -> int | None:
        """Bytes of the regular file ``relative`` under ``root``; None when there is none.
        Raises ``Forbidden`` (service.errors) if ``relative`` would leave the root, and
        ``OSError`` when it cannot be read."""
        ...

    def read(self, root: str, relative: str, *, max_bytes: int | None = None) -> bytes | None:
        """The bytes of the regular file ``relative`` under ``root``, at most
        ``max_bytes + 1`` of them when ``max_bytes`` is given (so a longer file reads
        longer than the bound); None when there is no regular file there (gone, a folder,
        a FIFO). Raises ``Forbidden`` if ``relative`` would leave the root, and ``OSError``
        when it cannot be read (permission denied, a link loop)."""
        ...


class Upstream(Protocol):
    """Another memory service speaking strata's search contract (docs/api.md, Upstream
    recall), asked when the local memory finds nothing."""

    name: str
    """How results and ``/health`` name it."""

    def search(self, namespace: str, query: str, limit: int, timeout: float) -> list[UpstreamHit]:
        """Its best ``limit`` hits for ``query`` in its ``namespace``, best first, answered
        within ``timeout`` seconds; raises ``UpstreamError`` (``service.domain.recall``)
        when it does not answer in time, cannot be reached or refuses."""
        ...


class Clock(Protocol):
    def __call__(self) -> float:
        """Seconds since the epoch."""
        ...


class IdFactory(Protocol):
    def __call__(self) -> str: ...


__all__ = [
    "ChangeLog",
    "Checkpoint",
    "Chunk",
    "Clock",
    "Compaction",
    "Coordination",
    "Embedder",
    "Entries",
    "Files",
    "FollowedLedger",
    "History",
    "IdFactory",
    "IndexState",
    "Inventory",
    "KeywordStore",
    "Ledger",
    "NamespaceCatalog",
    "NamespaceEntries",
    "NamespaceInteractions",
    "Passages",
    "Relations",
    "RunLog",
    "Upstream",
    "VectorStore",
]
