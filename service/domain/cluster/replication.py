"""A replica's own keyword index, kept up with the shared ledger through its change log.

Every replica of a cluster keeps a Tantivy index of its own. A write is indexed at once by
the replica that acknowledges it (``Memory``: a client reads its own writes); what the other
replicas change reaches this index through the ledger's change log, read by ``Follower``.

The follower polls (every STRATA_REPLICA_POLL_MS) rather than waiting for LISTEN/NOTIFY:
the change log is itself the record of what to apply, so one indexed query
(``seq > checkpoint``, nothing when nothing changed) loses nothing across dropped
connections, restarts or a database fail-over, where notifications sent meanwhile are gone
and that query would be needed to catch up anyway.

A change is applied as the entry's current state in the ledger, never as what the change
did (but for a namespace's erasure, logged under a key of no entry, ``erasure_key``: the
index is then rebuilt, so that no segment file keeps the namespace's terms): a live entry
is written to the index, any other key removed from it. So applying a
change twice, or a later one before an earlier, leaves the index equal to the ledger all
the same, and the checkpoint (the last change applied, kept in the replica's data
directory) need not be saved with the index.

It runs only in a cluster. In one process, ``Memory`` applies every change to the index
before it is acknowledged and recovery at start finishes what a crash interrupted, so
following the log would index each write a second time for nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

from service.domain.entries import StoredEntry, erased_namespace, key_namespace
from service.domain.memory import indexable
from service.domain.memory.indexes import Indexes
from service.domain.model import ChangeBounds
from service.domain.ports import Checkpoint, FollowedLedger
from service.lib.loops import Loop

log = logging.getLogger(__name__)

BATCH = 500
"""Changes applied in one commit of the index."""
BOUNDS_EVERY = 50
"""Polls between two checks that no change the index lacks was trimmed from the log (also
checked whenever the log skips a sequence number)."""


@dataclass(frozen=True)
class Lag:
    """How far a replica's index is behind the ledger."""

    seconds: float
    """Since the oldest change not applied yet; 0 when caught up."""
    changes: int
    """Changes committed since the last one applied (at most: sequence numbers may skip)."""
    checkpoint: int
    """The last change applied."""


class Follower:
    """Applies the ledger's change log to this replica's keyword index, the one ``indexes``
    holds: under the lock this process's own writes hold while they index (a write made
    here is never overtaken by an older state of the same entry), and telling the
    namespaces each batch touched as those writes do (the query caches drop them)."""

    def __init__(
        self,
        ledger: FollowedLedger,
        indexes: Indexes,
        checkpoint: Checkpoint,
        *,
        batch: int = BATCH,
    ) -> None:
        self.ledger = ledger
        self.indexes = indexes
        self.checkpoint = checkpoint
        self.batch = batch
        self.applied = 0
        """The last change applied to the index."""
        self.changes_applied = 0
        """Changes applied by polling since the process started."""
        self.problem: str | None = None
        """Why the last poll failed, until one succeeds."""
        self._polls = 0
        self._loop = Loop("replica-follower")

    def start_up(self) -> int:
        """Bring the index up to the ledger: rebuilt from it when the change log cannot
        (no checkpoint, one below the log's horizon or past its latest change, an empty
        index), then caught up. Returns the changes applied after any rebuild."""
        saved = self.checkpoint.load()
        reason = self._rebuild_reason(saved, self.ledger.change_bounds())
        if reason is not None or saved is None:
            log.warning("rebuilding the keyword index from the ledger: %s", reason)
            self.rebuild()
        else:
            self.applied = saved
        return self.catch_up()

    def _rebuild_reason(self, saved: int | None, bounds: ChangeBounds) -> str | None:
        if saved is None:
            return "no checkpoint in the data directory"
        if saved < bounds.horizon:
            return (
                f"its checkpoint {saved} is below the change log's horizon {bounds.horizon}: "
                "changes it lacks were trimmed"
            )
        if saved > bounds.latest:
            return (
                f"its checkpoint {saved} is past the ledger's latest change {bounds.latest} "
                "(a ledger other than the one it followed)"
            )
        if self.indexes.keywords.count() == 0 and any(self.ledger.count().values()):
            return "the index is empty"
        return None

    def rebuild(self) -> int:
        """Replace the index with every live entry of the ledger (nothing is embedded);
        the checkpoint becomes the latest change committed before the ledger was read, so
        whatever is committed while it reads is applied after. Returns the entries indexed."""
        latest = self.ledger.change_bounds().latest
        total = 0
        seen: set[str] = set()

        def batches() -> Iterator[list[StoredEntry]]:
            nonlocal total
            for scanned in self.ledger.scan():
                # What no index can take is the leader's to set aside (recover_pending).
                batch = [s for s in scanned if indexable.problem(s) is None]
                seen.update(s.entry.namespace for s in batch)
                total += len(batch)
                yield batch

        self.indexes.keywords.replace_all(batches())
        self._applied_up_to(latest)
        self.indexes.changed(seen)
        log.info("keyword index rebuilt from the ledger: %d entries, at change %d", total, latest)
        return total

    def poll(self) -> int:
        """Apply the next batch of changes, if any; returns how many were applied (a
        rebuild, when changes the index lacks were trimmed, counts as none)."""
        after = self.applied
        changes = self.ledger.changes(after, self.batch)
        self._polls += 1
        skipped = bool(changes) and changes[0].seq > after + 1
        if (skipped or self._polls % BOUNDS_EVERY == 0) and self._trimmed(after):
            self.rebuild()
            return 0
        if not changes:
            return 0
        erased = {ns for c in changes if (ns := erased_namespace(c.key)) is not None}
        keys = [k for k in dict.fromkeys(c.key for c in changes) if erased_namespace(k) is None]
        with self.indexes.lock:
            # An erased namespace's index goes whole; what the ledger holds of it now (written
            # after the erasure) is applied next, as every change is: from the live entry.
            for namespace in erased:
                self.indexes.keywords.erase_namespace(namespace)
            live = self.ledger.get(keys)
            upserts = [
                s for k in keys if (s := live.get(k)) is not None and not indexable.problem(s)
            ]
            indexed = {s.entry.key for s in upserts}
            self.indexes.keywords.apply(upserts, [k for k in keys if k not in indexed])
        self._applied_up_to(changes[-1].seq)
        self.changes_applied += len(changes)
        self.indexes.changed([*erased, *(key_namespace(k) for k in keys)])
        return len(changes)

    def _trimmed(self, after: int) -> bool:
        horizon = self.ledger.change_bounds().horizon
        if horizon > after:
            log.warning(
                "changes after %d were trimmed from the log (horizon %d): rebuilding",
                after,
                horizon,
            )
            return True
        return False

    def catch_up(self) -> int:
        """Apply changes until none is left; returns how many were applied."""
        total = 0
        while True:
            applied = self.poll()
            total += applied
            if applied < self.batch:
                return total

    def lag(self) -> Lag:
        applied = self.applied
        oldest = self.ledger.changes(applied, 1)
        seconds = max(0.0, self.indexes.clock() - oldest[0].at) if oldest else 0.0
        behind = max(0, self.ledger.change_bounds().latest - applied) if oldest else 0
        return Lag(seconds, behind, applied)

    def start(self, interval: float) -> None:
        """Poll every ``interval`` seconds on a thread of its own until ``stop``."""
        self._loop.start(partial(self._follow, interval))

    def stop(self) -> None:
        self._loop.stop()

    def _follow(self, interval: float, stopping: threading.Event) -> None:
        while not stopping.wait(interval):
            try:
                self.catch_up()
            except Exception as exc:  # the ledger may be away for a while: keep trying
                if self.problem is None:
                    log.exception("following the ledger's change log failed; retrying")
                self.problem = f"{type(exc).__name__}: {exc}"
            else:
                if self.problem is not None:
                    log.info("following the ledger's change log again")
                self.problem = None

    def _applied_up_to(self, seq: int) -> None:
        self.checkpoint.save(seq)
        self.applied = seq
