"""Every change to stored entries: ledger first, then the derived indexes."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from service.domain import indexable
from service.domain.bounds import require_bounds
from service.domain.duplicates import fingerprint
from service.domain.group_commit import GroupCommit, Pending
from service.domain.models import (
    EMBEDDED_TIERS,
    ArchivedEntry,
    Committed,
    EngineUnavailable,
    Entry,
    Erasure,
    Filters,
    HistoryEvent,
    IndexUnavailable,
    Kind,
    Recovered,
    Similar,
    StoredEntry,
    Tier,
    WriteOutcome,
    entry_key,
    key_namespace,
)
from service.domain.ports import Embedder, KeywordStore, Ledger, VectorStore
from service.domain.preparation import in_threads, prepare
from service.errors import FieldError, InvalidInput
from service.settings import ChunkingSettings

log = logging.getLogger(__name__)

Progress = Callable[[int], None]

BATCH = 500
"""Entries archived or deleted by one step of a lifecycle job."""
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


class Memory:
    """Owns every change to stored entries.

    Order of a write: vectors are computed first (no lock held), then the ledger
    records the entries as pending in one transaction (the write is now durable),
    then Chroma and Tantivy are updated and the entries marked synced. Anything
    pending after a crash is re-applied from the ledger by ``recover``.

    Chroma holds the vectors of live (not archived) tier A and C entries; Tantivy
    holds every entry. Both can be rebuilt from the ledger, which keeps the vectors.
    """

    def __init__(
        self,
        ledger: Ledger,
        vectors: VectorStore,
        keywords: KeywordStore,
        embedder: Embedder | None,
        chunking: ChunkingSettings,
        *,
        clock: Callable[[], float] = time.time,
        on_change: Callable[[Iterable[str]], None] | None = None,
        on_commit: Callable[[Committed], None] | None = None,
    ) -> None:
        self.similar_threshold = chunking.similar_threshold
        self.ledger = ledger
        self.vectors = vectors
        self.keywords = keywords
        self.embedder = embedder
        self.chunking = chunking
        self.clock = clock
        self.on_change = on_change
        """Told the namespaces of every change, once the indexes hold it."""
        self.on_commit = on_commit
        """Told how each group commit of writes ended."""
        self.lock = threading.Lock()
        """Held by every change to stored entries, from the ledger to the indexes (and by a
        replica applying the changes of others to its index)."""
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
        namespace it replaces (InvalidInput naming ``events[n].supersedes[i]`` for any
        other; then nothing is written). An entry whose key is in ``once`` (written without
        an id) is not stored when it repeats a live entry (same namespace, tier, speaker and
        normalised text): the outcome gives that entry's id instead.

        Concurrent writes are committed as a group: one model call embeds all their
        chunks, the ledger records them, and each index is updated once for all of them.
        An entry out of bounds (``bounds.breaches``) is InvalidInput naming
        ``entries[n].<field>``; then nothing is written.
        """
        require_bounds(list(entries), self.chunking, "entries")
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
        with self.lock:
            stored = in_threads(
                [s for _, batch in ready for s in batch], self.ledger.last_in_thread
            )
            at = self.clock()
            start, durable = 0, []
            seen: dict[tuple[str, str], str] = {}
            """Fingerprints of the entries this group stored, with their ids."""
            for pending, batch in ready:
                mine = stored[start : start + len(batch)]
                start += len(batch)
                try:
                    written, pairs = self._checked(pending.write, mine, seen)
                    self.ledger.put(
                        written.stored, actor=pending.write.actor, at=at, supersedes=pairs
                    )
                except Exception as error:  # nothing of this write was stored
                    pending.error = error
                    continue
                for s in written.stored:
                    seen.setdefault((s.entry.namespace, fingerprint(s.entry)), s.entry.id)
                pending.result = [written]
                durable.extend(written.stored)
            # The writes are durable: they are acknowledged whatever befalls the indexes.
            # Entries left pending are applied by ``recover`` (at start and on schedule).
            try:
                self._index(durable)
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
        repeats = self.ledger.duplicates([e for e in entries if e.key in write.once])
        duplicate_of: dict[int, str] = {}
        local: dict[tuple[str, str], str] = {}
        for n, e in enumerate(entries):
            mark = (e.namespace, fingerprint(e))
            existing = repeats.get(e.key) or seen.get(mark) or local.get(mark)
            if e.key in write.once and existing is not None:
                duplicate_of[n] = existing
            else:
                local.setdefault(mark, e.id)
        wanted = {
            entry_key(e.namespace, old) for e in entries for old in write.supersedes.get(e.key, ())
        }
        live = self.ledger.get(sorted(wanted)) if wanted else {}
        errors: list[FieldError] = []
        pairs: list[tuple[str, str]] = []
        for n, e in enumerate(entries):
            newer = entry_key(e.namespace, duplicate_of.get(n, e.id))
            for i, old in enumerate(write.supersedes.get(e.key, ())):
                key = entry_key(e.namespace, old)
                if key == newer:
                    errors.append(
                        FieldError(
                            f"events[{n}].supersedes[{i}]", "an entry cannot supersede itself"
                        )
                    )
                elif key not in live:
                    errors.append(
                        FieldError(
                            f"events[{n}].supersedes[{i}]",
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
            filters = Filters(namespace=e.namespace, tiers=EMBEDDED_TIERS, now=self.clock())
            try:
                hits = [
                    (tier, hit)
                    for tier in EMBEDDED_TIERS
                    for hit in self.vectors.search(tier, vector, filters, SIMILAR + len(skip))
                    if hit.key not in skip and hit.score >= self.similar_threshold
                ]
            except EngineUnavailable:
                continue  # an answer without them rather than none
            if not hits:
                continue
            current = self.ledger.passages([h.key for _, h in hits])
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
            stored = self.prepare_kept([e for pending in group for e in pending.write.entries])
        except Exception:
            if len(group) == 1:
                raise
            ready = []
            for pending in group:
                try:
                    ready.append((pending, self.prepare_kept(pending.write.entries)))
                except Exception as error:
                    pending.error = error
            return ready
        ready, start = [], 0
        for pending in group:
            size = len(pending.write.entries)
            ready.append((pending, stored[start : start + size]))
            start += size
        return ready

    def prepare(self, entries: Sequence[Entry]) -> list[StoredEntry]:
        """Chunk every entry and embed the chunks of embedded tiers, in one model call."""
        return prepare(entries, self.embedder, self.chunking)

    def prepare_kept(self, entries: Sequence[Entry]) -> list[StoredEntry]:
        """``prepare``, or, when the model fails, the entries without vectors: the write is
        kept and acknowledged, and ``backfill`` embeds them once the model answers."""
        try:
            return self.prepare(entries)
        except EngineUnavailable as exc:
            if exc.engine != "model":
                raise
            log.warning("%s: %d entries kept without vectors", exc, len(entries))
            return prepare(entries, None, self.chunking)

    def _index(self, stored: Sequence[StoredEntry]) -> None:
        keys = [s.entry.key for s in stored]
        try:
            self.vectors.delete(keys)
            self.vectors.upsert([s for s in stored if s.in_vector_index])
        except EngineUnavailable:
            # Found by keywords meanwhile; they stay pending, for ``recover`` to finish.
            self.keywords.apply(stored, ())
            self._changed(s.entry.namespace for s in stored)
            raise
        self.keywords.apply(stored, ())
        self.ledger.mark_synced(keys)
        self._changed(s.entry.namespace for s in stored)

    def _changed(self, namespaces: Iterable[str]) -> None:
        if self.on_change is not None:
            self.on_change(set(namespaces))

    def get(self, key: str) -> StoredEntry | None:
        return self.ledger.get([key]).get(key)

    def history(self, key: str) -> list[HistoryEvent]:
        return self.ledger.history(key)

    def delete(self, keys: Sequence[str], actor: str = "") -> list[str]:
        """Remove entries from the ledger and both indexes; returns the keys that existed."""
        with self.lock:
            existing = self.ledger.mark_deleting(keys)
            if existing:
                self._remove(existing, actor)
        return existing

    def _remove(self, keys: Sequence[str], actor: str = "") -> None:
        self.vectors.delete(keys)
        self.keywords.apply((), keys)
        self.ledger.remove(keys, actor=actor, at=self.clock())
        self._changed(key_namespace(k) for k in keys)

    def set_archived(self, keys: Sequence[str], archived: bool, actor: str = "") -> int:
        """Archive entries (out of Chroma, out of default searches) or restore them."""
        with self.lock:
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
            for s in self.ledger.get(keys).values()
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
            with self.lock:
                keys = self.ledger.select_keys(
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
            with self.lock:
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
                with self.lock:
                    keys = self.ledger.select_keys(
                        tier=tier,
                        archived=archived,
                        older_than=older_than,
                        exclude_kind=exclude_kind,
                        limit=BATCH,
                    )
                    if not keys:
                        break
                    existing = self.ledger.mark_deleting(keys)
                    self._remove(existing, actor)
                    deleted += len(existing)
        return deleted

    def drop_expired_vectors(self, now: float) -> None:
        """Remove the vectors of tier C entries past their expiry."""
        self.vectors.delete_expired(now)

    def optimize(self) -> int:
        """Merge the keyword index's segments; returns the documents it holds."""
        self.keywords.optimize()
        return self.keywords.count()

    def promote(self, keys: Sequence[str], actor: str = "") -> int:
        """Make tier C entries lasting tier A decisions, archived or not, keeping their vectors.

        Raises InvalidInput naming ``ids[i]`` for every unknown or non-C entry; then nothing
        is promoted.
        """
        with self.lock:
            found = self.ledger.get(keys)
            errors = []
            for n, key in enumerate(keys):
                stored = found.get(key)
                if stored is None:
                    errors.append(FieldError(f"ids[{n}]", "no such entry"))
                elif stored.entry.tier != "C":
                    errors.append(FieldError(f"ids[{n}]", f"is tier {stored.entry.tier}, not C"))
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
        with self.lock:
            changed = [
                StoredEntry(
                    replace(s.entry, metadata={**s.entry.metadata, **changes}), s.chunks, s.tokens
                )
                for s in self.ledger.get(keys).values()
            ]
            self._rewrite(changed, actor, "updated")
        return len(changed)

    def _rewrite(self, changed: list[StoredEntry], actor: str, action: str) -> None:
        require_bounds([s.entry for s in changed], self.chunking, "entries")
        if changed:
            self.ledger.put(changed, actor=actor, action=action, at=self.clock())
            self._index(changed)

    def recover(self) -> Recovered:
        """Finish the writes and deletes not yet applied to the indexes (interrupted by a
        crash, or by an index that failed). An entry that cannot be indexed is set aside
        in quarantine with the reason, so that one row never blocks the rest."""
        with self.lock:
            pending, deleting = self.ledger.unsynced()
            reasons = {s.entry.key: reason for s in pending if (reason := indexable.problem(s))}
            ready = [s for s in pending if s.entry.key not in reasons]
            reasons |= self._index_each(ready)
            if reasons:
                self.ledger.quarantine(reasons, at=self.clock())
                for key, reason in reasons.items():
                    log.error("entry %s set aside in quarantine: %s", key, reason)
            if deleting:
                self._remove(deleting, "recovery")
        done = Recovered(len(pending) - len(reasons), len(deleting), len(reasons))
        if pending or deleting:
            log.info("recovered %s", done)
        return done

    def _index_each(self, stored: list[StoredEntry]) -> dict[str, str]:
        """Index ``stored`` at once or, if that fails, one entry at a time; the entries that
        fail alone while others succeed are returned with the reason. If every one fails,
        the fault is the index's, not theirs: the error is raised and they stay pending."""
        try:
            self._index(stored)
            return {}
        except EngineUnavailable:
            raise  # the engine's fault, not the entries'
        except Exception:
            if len(stored) == 1:
                raise
        failed: dict[str, str] = {}
        for s in stored:
            try:
                self._index([s])
            except Exception as exc:
                failed[s.entry.key] = f"indexing failed ({type(exc).__name__}: {exc})"
        if len(failed) == len(stored):
            raise IndexUnavailable(f"no entry of {len(stored)} could be indexed")
        return failed

    def backfill(self, batch: int = 256) -> int:
        """Embed tier A and C entries written while no model was loaded."""
        if self.embedder is None:
            return 0
        done = 0
        while keys := self.ledger.missing_vectors(batch):
            entries = [s.entry for s in self.ledger.get(keys).values()]
            stored = self.prepare(entries)
            with self.lock:
                current = self.ledger.get(keys)
                # Skip entries rewritten or deleted while this batch was being embedded.
                fresh = [
                    s
                    for s in stored
                    if (now := current.get(s.entry.key)) is not None and now.entry == s.entry
                ]
                self.ledger.put(fresh, action="embedded", actor="backfill", at=self.clock())
                self._index(fresh)
            done += len(fresh)
            if not fresh:
                break
        return done

    def restore(self, items: Sequence[ArchivedEntry]) -> None:
        """Write entries whole, chunks and history as given (an import), and index them;
        InvalidInput, and nothing written, for an entry out of bounds."""
        require_bounds([i.stored.entry for i in items], self.chunking, "entries")
        if items:
            with self.lock:
                self.ledger.restore(items)
                self._index([i.stored for i in items])

    def erase_namespace(self, namespace: str, actor: str, counted: Mapping[str, int]) -> Erasure:
        """Remove the namespace from the ledger, the vectors and the keyword index.

        The keyword index is rebuilt from the ledger (nothing is embedded): Tantivy only
        marks a deleted document, and keeps its terms in its segment files until they are
        merged; rewriting the index leaves none of them. A failure after the ledger's part
        leaves the indexes with entries the ledger has not: an erasure run again finishes
        them (and a rebuild would drop them)."""
        with self.lock:
            erasure = self.ledger.erase(namespace, actor=actor, at=self.clock(), counted=counted)
            self.vectors.erase_namespace(namespace)
            self.keywords.replace_all(self._indexable())
            self.keywords.optimize()
            self._changed([namespace])
        return erasure

    def _indexable(self) -> Iterator[list[StoredEntry]]:
        for scanned in self.ledger.scan():
            yield [s for s in scanned if indexable.problem(s) is None]

    def indexes_match_ledger(self) -> bool:
        """Whether Chroma and Tantivy hold as many records as the ledger says they should."""
        live = sum(self.ledger.count().values())
        vectors = sum(self.vectors.count(tier) for tier in ("A", "C"))
        return self.keywords.count() == live and vectors == self.ledger.vector_count()

    def rebuild(self, progress: Progress | None = None) -> int:
        """Re-derive Chroma and Tantivy from the ledger without re-embedding.

        Searches keep working throughout: Tantivy swaps in the new documents with one
        commit; Chroma is rewritten a batch of entries at a time and orphans removed last.
        Writes wait until the rebuild is done.
        """
        total = 0
        with self.lock:
            keep: set[str] = set()
            seen: set[str] = set()
            aside: dict[str, str] = {}

            def batches() -> Iterator[list[StoredEntry]]:
                nonlocal total
                for scanned in self.ledger.scan():
                    batch = []
                    for s in scanned:
                        if reason := indexable.problem(s):
                            aside[s.entry.key] = reason
                        else:
                            batch.append(s)
                    live = [s for s in batch if s.in_vector_index]
                    # Drop records an entry no longer has (another tier, older chunks).
                    self.vectors.delete([s.entry.key for s in batch])
                    self.vectors.upsert(live)
                    keep.update(s.entry.key for s in live)
                    seen.update(s.entry.namespace for s in batch)
                    total += len(batch)
                    if progress:
                        progress(total)
                    yield batch

            self.keywords.replace_all(batches())
            self.vectors.delete([k for k in self.vectors.entry_keys() if k not in keep])
            if aside:
                self.ledger.quarantine(aside, at=self.clock())
            self._changed(seen)
        return total


def _touched(write: _Write) -> set[str]:
    """The keys a write changes: its entries' and those they supersede (two writes touching
    one key go in separate groups)."""
    keys = {e.key for e in write.entries}
    for e in write.entries:
        keys.update(entry_key(e.namespace, old) for old in write.supersedes.get(e.key, ()))
    return keys
