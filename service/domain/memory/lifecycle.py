"""What happens to stored entries over their life: archived, restored, promoted, their
metadata updated, deleted; each change recorded in the ledger, then in the indexes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from service.domain.entries import Entry, Kind, StoredEntry, Tier
from service.domain.memory.part import Part
from service.domain.ports import Entries, IndexState, Inventory
from service.errors import FieldError, InvalidInput

BATCH = 500
"""Entries archived or deleted by one step of a lifecycle job."""


@dataclass(eq=False)
class Lifecycle(Part):
    """Changes to entries already stored, each under the write lock: the ledger first, then
    the indexes (every entry rewritten checked against the bounds by ``preparer``)."""

    entries: Entries
    state: IndexState
    inventory: Inventory

    def delete(self, keys: Sequence[str], actor: str = "") -> list[str]:
        """Remove entries from the ledger and both indexes; returns the keys that existed."""
        with self.indexes.lock:
            existing = self.state.mark_deleting(keys)
            if existing:
                self.indexes.remove(existing, actor)
        return existing

    def set_archived(self, keys: Sequence[str], archived: bool, actor: str = "") -> int:
        """Archive entries (out of Chroma, out of default searches) or restore them."""
        with self.indexes.lock:
            return self._set_archived(keys, archived, actor)

    def _set_archived(self, keys: Sequence[str], archived: bool, actor: str) -> int:
        return len(self._archive(keys, archived, actor))

    def _archive(
        self,
        keys: Sequence[str],
        archived: bool,
        actor: str,
        still: Callable[[Entry], bool] | None = None,
    ) -> list[Entry]:
        changed = [
            StoredEntry(replace(s.entry, archived=archived), s.chunks, s.tokens)
            for s in self.entries.get(keys).values()
            if s.entry.archived != archived and (still is None or still(s.entry))
        ]
        self._rewrite(changed, actor, "archived" if archived else "restored")
        return [s.entry for s in changed]

    def archive_where(
        self,
        tier: Tier,
        *,
        expires_before: float | None = None,
        older_than: float | None = None,
        actor: str = "",
    ) -> int:
        """Archive the live entries of ``tier`` that expired before ``expires_before`` or
        are dated before ``older_than``, a batch at a time. Each batch is selected under
        the write lock, so an entry promoted or rewritten meanwhile is judged as it is now."""
        archived = 0
        while True:
            with self.indexes.lock:
                keys = self.inventory.select_keys(
                    tier=tier, expires_before=expires_before, older_than=older_than, limit=BATCH
                )
                if not keys:
                    return archived
                archived += len(self._archive(keys, True, actor))

    def archive_if(
        self, keys: Sequence[str], still: Callable[[Entry], bool], actor: str = ""
    ) -> list[Entry]:
        """Archive those of ``keys`` whose entry, as it is when its batch is archived (under
        the write lock), satisfies ``still``; returns the entries archived."""
        done: list[Entry] = []
        for start in range(0, len(keys), BATCH):
            with self.indexes.lock:
                done.extend(self._archive(keys[start : start + BATCH], True, actor, still))
        return done

    def delete_older(
        self, tier: Tier, older_than: float, actor: str = "", *, exclude_kind: Kind | None = None
    ) -> int:
        """Delete for good the entries of ``tier`` (of any kind but ``exclude_kind``),
        archived or not, dated before ``older_than``; selected under the write lock like
        ``archive_where``."""
        deleted = 0
        for archived in (False, True):
            while True:
                with self.indexes.lock:
                    keys = self.inventory.select_keys(
                        tier=tier,
                        archived=archived,
                        older_than=older_than,
                        exclude_kind=exclude_kind,
                        limit=BATCH,
                    )
                    if not keys:
                        break
                    existing = self.state.mark_deleting(keys)
                    self.indexes.remove(existing, actor)
                    deleted += len(existing)
        return deleted

    def drop_expired_vectors(self, now: float) -> None:
        """Remove the vectors of tier C entries past their expiry."""
        self.indexes.drop_expired_vectors(now)

    def optimize(self) -> int:
        """Merge the keyword index's segments; returns the documents it holds."""
        return self.indexes.optimize()

    def promote(self, keys: Sequence[str], actor: str = "") -> int:
        """Make tier C entries lasting tier A decisions, archived or not, keeping their vectors.

        Raises InvalidInput naming ``entries[n]`` (the n-th of ``keys``) for every unknown or
        non-C entry; then nothing is promoted.
        """
        with self.indexes.lock:
            found = self.entries.get(keys)
            errors = []
            for n, key in enumerate(keys):
                stored = found.get(key)
                if stored is None:
                    errors.append(FieldError(f"entries[{n}]", "no such entry"))
                elif stored.entry.tier != "C":
                    message = f"is tier {stored.entry.tier}, not C"
                    errors.append(FieldError(f"entries[{n}]", message))
            if errors:
                raise InvalidInput(errors)
            promoted = [
                StoredEntry(
                    replace(s.entry, tier="A", expires_at=None, archived=False), s.chunks, s.tokens
                )
                for s in (found[k] for k in dict.fromkeys(keys))
            ]
            self._rewrite(promoted, actor, "promoted")
        return len(promoted)

    def update_metadata(
        self, keys: Sequence[str], changes: Mapping[str, Any], actor: str = ""
    ) -> int:
        """Merge ``changes`` into entries' metadata, keeping their text and vectors."""
        with self.indexes.lock:
            changed = [
                StoredEntry(
                    replace(s.entry, metadata={**s.entry.metadata, **changes}), s.chunks, s.tokens
                )
                for s in self.entries.get(keys).values()
            ]
            self._rewrite(changed, actor, "updated")
        return len(changed)

    def _rewrite(self, changed: list[StoredEntry], actor: str, action: str) -> None:
        self.preparer.check([s.entry for s in changed])
        if changed:
            stale = self.entries.put(changed, actor=actor, action=action, at=self.clock())
            self.indexes.index(changed, stale)
