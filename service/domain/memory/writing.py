"""The write path: new entries chunked and embedded, recorded in the ledger, then indexed."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from service.domain.entries import Entry, StoredEntry, entry_key
from service.domain.errors import EngineUnavailable
from service.domain.memory.outcomes import Committed, Similar, WriteOutcome
from service.domain.memory.part import Part
from service.domain.memory.preparation import in_threads
from service.domain.ports import Entries, Passages, Relations
from service.errors import FieldError, InvalidInput
from service.lib.group_commit import GroupCommit, Pending

log = logging.getLogger(__name__)

GROUP_ENTRIES = 2000
"""A group commit takes no more writes once it holds this many entries."""
SIMILAR = 3
"""Most similar entries a write names for each new tier A or C entry."""
SIMILAR_WRITES = 32
"""Writes of more events than this (bulk imports) look for no similar entries."""


@dataclass(frozen=True)
class _Write:
    entries: list[Entry]
    actor: str
    supersedes: Mapping[str, Sequence[str]]
    """By the key of an entry written: the ids of its namespace it replaces."""
    once: frozenset[str]
    """Keys of entries written without an id: not stored when a live entry repeats them."""


@dataclass
class _Written:
    """What a write stored: its entries, and the position of each repeat of a live entry
    with that entry's id."""

    stored: list[StoredEntry]
    duplicate_of: dict[int, str]


Ready = tuple[Pending[_Write], list[StoredEntry]]
"""A write of a group and its entries, chunked and embedded."""


@dataclass(eq=False)
class Writer(Part):
    """Stores new entries durably and indexes them.

    Order of a write: vectors are computed first (no lock held), then the ledger
    records the entries as pending in one transaction (the write is now durable),
    then Chroma and Tantivy are updated and the entries marked synced. Anything
    pending after a crash is re-applied from the ledger by ``IndexRepair.recover``.
    """

    entries: Entries
    relations: Relations
    passages: Passages
    on_commit: Callable[[Committed], None] | None = field(default=None, kw_only=True)
    """Told how each group commit of writes ended."""

    def __post_init__(self) -> None:
        self._writes: GroupCommit[_Write] = GroupCommit(self._commit, _touched, GROUP_ENTRIES)

    def write(
        self,
        entries: Sequence[Entry],
        actor: str = "",
        *,
        supersedes: Mapping[str, Sequence[str]] | None = None,
        once: Iterable[str] = (),
    ) -> WriteOutcome:
        """Store entries durably and index them; returns once both are done.

        ``supersedes`` names, by the key of an entry written, the ids of live entries of its
        namespace it replaces (InvalidInput naming ``entries[n].supersedes[i]`` for any
        other; then nothing is written). An entry whose key is in ``once`` (written without
        an id) is not stored when it repeats a live entry (same namespace, tier, speaker and
        normalised text): the outcome gives that entry's id instead.

        Concurrent writes are committed as a group: one model call embeds all their
        chunks, the ledger records them, and each index is updated once for all of them.
        An entry out of bounds (``bounds.breaches``) is InvalidInput naming
        ``entries[n].<field>``; then nothing is written.
        """
        self.preparer.check(entries)
        write = _Write(list(entries), actor, dict(supersedes or {}), frozenset(once))
        done = self._writes.submit(write)
        written: _Written = done.result[0]
        stored = written.stored
        embedded = sum(1 for s in stored if s.entry.embedded and s.has_vectors)
        indexed = len(stored) if done.indexed else 0
        ids = [written.duplicate_of.get(n, e.id) for n, e in enumerate(entries)]
        similar = self._similar(write, written) if len(entries) <= SIMILAR_WRITES else {}
        return WriteOutcome(ids, embedded, indexed, dict(written.duplicate_of), similar)

    def _commit(self, group: list[Pending[_Write]]) -> None:
        turn = time.perf_counter()
        ready = self._prepared(group)
        with self.indexes.lock:
            stored = in_threads(
                [s for _, batch in ready for s in batch], self.entries.last_in_thread
            )
            at = self.clock()
            start, durable, stale = 0, [], []
            seen: dict[tuple[str, str], str] = {}
            """Fingerprints of the entries this group stored, with their ids."""
            for pending, batch in ready:
                mine = stored[start : start + len(batch)]
                start += len(batch)
                try:
                    written, pairs = self._checked(pending.write, mine, seen)
                    held = self.entries.put(
                        written.stored, actor=pending.write.actor, at=at, supersedes=pairs
                    )
                except Exception as error:  # nothing of this write was stored
                    pending.error = error
                    continue
                for s in written.stored:
                    seen.setdefault((s.entry.namespace, s.entry.fingerprint), s.entry.id)
                pending.result = [written]
                durable.extend(written.stored)
                stale.extend(held)
            # The writes are durable: they are acknowledged whatever befalls the indexes.
            # Entries left pending are applied by ``recover`` (at start and on schedule).
            try:
                # Only the old vectors the ledger says may be there are deleted: a write of
                # new tier E entries asks nothing of the vector store.
                self.indexes.index(durable, stale)
            except Exception:
                log.exception("indexing %d written entries failed; they stay pending", len(durable))
                for pending, _ in ready:
                    pending.indexed = False
        if self.on_commit is not None:
            waits = tuple(turn - pending.queued for pending in group)
            self.on_commit(Committed(len(group), waits, tuple(durable)))

    def _checked(
        self, write: _Write, stored: list[StoredEntry], seen: Mapping[tuple[str, str], str]
    ) -> tuple[_Written, list[tuple[str, str]]]:
        """A write's entries without its repeats of live entries (or of entries of its group),
        and the (older, newer) keys of its supersessions; InvalidInput naming every id it
        supersedes that is not a live entry of its namespace."""
        entries = write.entries
        repeats = self.relations.duplicates([e for e in entries if e.key in write.once])
        duplicate_of: dict[int, str] = {}
        local: dict[tuple[str, str], str] = {}
        for n, e in enumerate(entries):
            mark = (e.namespace, e.fingerprint)
            existing = repeats.get(e.key) or seen.get(mark) or local.get(mark)
            if e.key in write.once and existing is not None:
                duplicate_of[n] = existing
            else:
                local.setdefault(mark, e.id)
        wanted = {
            entry_key(e.namespace, old) for e in entries for old in write.supersedes.get(e.key, ())
        }
        live = self.entries.get(sorted(wanted)) if wanted else {}
        errors: list[FieldError] = []
        pairs: list[tuple[str, str]] = []
        for n, e in enumerate(entries):
            newer = entry_key(e.namespace, duplicate_of.get(n, e.id))
            for i, old in enumerate(write.supersedes.get(e.key, ())):
                key = entry_key(e.namespace, old)
                if key == newer:
                    errors.append(
                        FieldError(
                            f"entries[{n}].supersedes[{i}]", "an entry cannot supersede itself"
                        )
                    )
                elif key not in live:
                    errors.append(
                        FieldError(
                            f"entries[{n}].supersedes[{i}]",
                            f"no entry {old!r} in namespace {e.namespace!r}",
                        )
                    )
                else:
                    pairs.append((key, newer))
        if errors:
            raise InvalidInput(errors)
        kept = [s for n, s in enumerate(stored) if n not in duplicate_of]
        return _Written(kept, duplicate_of), pairs

    def _similar(self, write: _Write, written: _Written) -> dict[int, list[Similar]]:
        """For each new tier A or C entry, the live entries of its namespace closest to its
        first chunk (by the vector it was written with: no model call), at or above the
        threshold, best first; neither the write's own entries nor those it supersedes, nor
        entries superseded already."""
        found: dict[int, list[Similar]] = {}
        by_key = {s.entry.key: s for s in written.stored}
        own = {s.entry.key for s in written.stored}
        for n, e in enumerate(write.entries):
            stored = by_key.get(e.key)
            if n in written.duplicate_of or stored is None or not stored.in_vector_index:
                continue
            vector = stored.chunks[0].vector
            assert vector is not None
            skip = own | {entry_key(e.namespace, old) for old in write.supersedes.get(e.key, ())}
            least = self.preparer.similar_threshold
            try:
                nearest = self.indexes.nearest(
                    vector, e.namespace, self.clock(), SIMILAR + len(skip)
                )
                hits = [
                    (tier, hit)
                    for tier, hit in nearest
                    if hit.key not in skip and hit.score >= least
                ]
            except EngineUnavailable:
                continue  # an answer without them rather than none
            if not hits:
                continue
            current = self.passages.passages([h.key for _, h in hits])
            close = [
                Similar(current[h.key][0].id, tier, round(h.score, 4))
                for tier, h in sorted(hits, key=lambda th: (-th[1].score, th[1].key))
                if h.key in current and current[h.key][0].superseded_by is None
            ]
            if close:
                found[n] = close[:SIMILAR]
        return found

    def _prepared(
        self, group: list[Pending[_Write]]
    ) -> list[tuple[Pending[_Write], list[StoredEntry]]]:
        """Each write's entries chunked and embedded: the whole group in one model call,
        or, if that fails, each write on its own, so that a failure fails only its write."""
        try:
            stored = self.preparer.prepare_kept(
                [e for pending in group for e in pending.write.entries]
            )
        except Exception:
            if len(group) == 1:
                raise
            ready = []
            for pending in group:
                try:
                    ready.append((pending, self.preparer.prepare_kept(pending.write.entries)))
                except Exception as error:
                    pending.error = error
            return ready
        ready, start = [], 0
        for pending in group:
            size = len(pending.write.entries)
            ready.append((pending, stored[start : start + size]))
            start += size
        return ready


def _touched(write: _Write) -> set[str]:
    """The keys a write changes: its entries' and those they supersede (two writes touching
    one key go in separate groups)."""
    keys = {e.key for e in write.entries}
    for e in write.entries:
        keys.update(entry_key(e.namespace, old) for old in write.supersedes.get(e.key, ()))
    return keys
