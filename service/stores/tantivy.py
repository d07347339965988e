"""Keyword store on Tantivy: an index per namespace (``tantivy_index``), so every BM25
statistic a search uses is its namespace's own, and erasing a namespace deletes its folder.

On disk: ``<path>/CURRENT`` names the live generation, a folder holding one index folder
per namespace (``ns-<name>``). A rebuild writes the next generation beside it and switches
``CURRENT`` when done, so searches read the old one until then and a failed rebuild leaves
it whole. Open indexes and idle writers are held in bounded pools: however many namespaces
there are, the open files, threads and memory stay those of the pools' sizes."""

from __future__ import annotations

import logging
import os
import shutil
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

import tantivy

from service.domain.entries import StoredEntry, key_namespace
from service.domain.model import Filters, Hit, KeywordStatistics
from service.stores.tantivy_index import (
    NamespaceIndex,
    documents,
    query_terms,
)

log = logging.getLogger(__name__)

CURRENT = "CURRENT"
PREFIX = "ns-"
"""Before a namespace's name in its folder's (``ns-..`` is a name, ``..`` a way out)."""
STRIPES = 16
"""Write locks, a namespace to one by its name's hash: bounded, whatever the namespaces."""


class TantivyKeywordStore:
    """Every query is built term by term, never parsed; each searches one namespace's
    index."""

    def __init__(
        self,
        path: Path,
        *,
        heap_bytes: int = 64 * 1024 * 1024,
        open_indexes: int = 64,
        open_writers: int = 4,
    ) -> None:
        self.path = path
        self.heap_bytes = heap_bytes
        self.open_indexes = open_indexes
        self.open_writers = open_writers
        self._stripes = [threading.RLock() for _ in range(STRIPES)]
        self._pool_lock = threading.Lock()
        self._indexes: OrderedDict[str, NamespaceIndex] = OrderedDict()
        self._writers: OrderedDict[str, tantivy.IndexWriter] = OrderedDict()
        """Idle writers, kept for the next write of their namespace (Tantivy merges
        segments in a writer's threads); a writer in use is out of this pool."""
        self._counts: dict[str, int] | None = None
        self._committers = ThreadPoolExecutor(open_writers, thread_name_prefix="keyword-commit")
        """Commit the namespaces of one write side by side."""
        self.generation = self._open()

    # -- layout

    def _open(self) -> str:
        self.path.mkdir(parents=True, exist_ok=True)
        current = self.path / CURRENT
        if current.exists():
            generation = current.read_text().strip()
        else:
            if (self.path / "meta.json").exists():
                # One index for every namespace, as an earlier version wrote: derived, so it
                # starts empty and the ledger refills it (an empty index rebuilds at start).
                log.warning("keyword index at %s is one shared index; starting anew", self.path)
            generation = "1"
            self._empty_folder()
            (self.path / generation).mkdir()
            self._switch(generation)
        for other in self.path.iterdir():
            if other.is_dir() and other.name != generation:
                shutil.rmtree(other)  # a rebuild cut short
        return generation

    def _empty_folder(self) -> None:
        for child in self.path.iterdir():
            if child.is_dir():
                shutil.rmtree(child)
            else:
                child.unlink()

    def _switch(self, generation: str) -> None:
        staged = self.path / f"{CURRENT}.next"
        staged.write_text(generation)
        os.replace(staged, self.path / CURRENT)

    def _folder(self, namespace: str, generation: str | None = None) -> Path:
        return self.path / (generation or self.generation) / f"{PREFIX}{namespace}"

    def namespaces(self) -> list[str]:
        """The namespaces with an index."""
        root = self.path / self.generation
        return sorted(p.name[len(PREFIX) :] for p in root.iterdir() if p.name.startswith(PREFIX))

    # -- pools

    def _stripe(self, namespace: str) -> threading.RLock:
        return self._stripes[zlib.crc32(namespace.encode()) % STRIPES]

    @contextmanager
    def _every_stripe(self) -> Iterator[None]:
        with ExitStack() as stack:
            for stripe in self._stripes:
                stack.enter_context(stripe)
            yield

    def _index(self, namespace: str, *, create: bool = False) -> NamespaceIndex | None:
        """The namespace's open index; None when it has none and ``create`` is false."""
        with self._pool_lock:
            index = self._indexes.pop(namespace, None)
            if index is None:
                folder = self._folder(namespace)
                if not create and not folder.exists():
                    return None
                index = NamespaceIndex(folder)
            self._indexes[namespace] = index
            while len(self._indexes) > self.open_indexes:
                self._indexes.popitem(last=False)
            return index

    def _take_writer(self, namespace: str, index: NamespaceIndex) -> tantivy.IndexWriter:
        """The namespace's writer; the caller holds its stripe."""
        with self._pool_lock:
            writer = self._writers.pop(namespace, None)
        return writer if writer is not None else index.writer(self.heap_bytes)

    def _give_back(self, namespace: str, writer: tantivy.IndexWriter) -> None:
        with self._pool_lock:
            self._writers[namespace] = writer
            idle = [n for n in self._writers if n != namespace]
        for other in idle[: max(0, len(idle) + 1 - self.open_writers)]:
            stripe = self._stripe(other)
            # A writer being taken or used is skipped, not waited for (no lock order).
            if stripe.acquire(blocking=False):
                try:
                    self._close_writer(other)
                finally:
                    stripe.release()

    def _close_writer(self, namespace: str) -> None:
        """Close the namespace's idle writer, its merges finished; the caller holds its
        stripe."""
        with self._pool_lock:
            writer = self._writers.pop(namespace, None)
        if writer is not None:
            writer.wait_merging_threads()

    # -- the port

    def apply(self, upserts: Sequence[StoredEntry], deletes: Sequence[str]) -> None:
        """Each namespace's part in one commit of its index, visible on return; the
        namespaces' commits run side by side (each waits on its disk)."""
        changes: dict[str, tuple[list[StoredEntry], list[str]]] = {}
        for stored in upserts:
            changes.setdefault(stored.entry.namespace, ([], []))[0].append(stored)
        for key in deletes:
            changes.setdefault(key_namespace(key), ([], []))[1].append(key)
        if len(changes) == 1:
            [(namespace, (written, deleted))] = changes.items()
            self._apply(namespace, written, deleted)
            return
        done = [
            self._committers.submit(self._apply, namespace, written, deleted)
            for namespace, (written, deleted) in changes.items()
        ]
        for future in done:
            future.result()  # the first failure, once every part has ended

    def _apply(self, namespace: str, written: list[StoredEntry], deleted: list[str]) -> None:
        with self._stripe(namespace):
            index = self._index(namespace, create=bool(written))
            if index is None:
                return  # nothing of the namespace is indexed
            writer = self._take_writer(namespace, index)
            try:
                NamespaceIndex.write(writer, written, deleted)
            except BaseException:
                writer.wait_merging_threads()
                raise
            index.reload()
            # A search may have opened the index anew meanwhile: it sees the commit too.
            pooled = self._index(namespace)
            if pooled is not None and pooled is not index:
                pooled.reload()
            entries = index.count()
            with self._pool_lock:
                if self._counts is not None:
                    self._counts[namespace] = entries
            self._give_back(namespace, writer)

    def search(
        self, text: str, filters: Filters, limit: int, needed: int | None = None
    ) -> list[Hit]:
        terms = query_terms(text)
        index = self._index(filters.namespace) if terms else None
        return index.search(terms, filters, limit, needed) if index is not None else []

    def statistics(self, text: str, namespace: str) -> KeywordStatistics:
        terms = query_terms(text)
        index = self._index(namespace)
        if index is None:
            return KeywordStatistics(0, dict.fromkeys(terms, 0))
        return index.statistics(terms)

    def replace_all(self, batches: Iterable[Sequence[StoredEntry]]) -> None:
        """Write the next generation, then switch to it; searches read the old one
        meanwhile, writes wait."""
        with self._every_stripe():
            generation = str(int(self.generation) + 1)
            root = self.path / generation
            if root.exists():
                shutil.rmtree(root)
            root.mkdir()
            building: OrderedDict[str, tantivy.IndexWriter] = OrderedDict()
            try:
                for batch in batches:
                    for stored in batch:
                        namespace = stored.entry.namespace
                        writer = building.pop(namespace, None)
                        if writer is None:
                            folder = self._folder(namespace, generation)
                            writer = NamespaceIndex(folder).writer(self.heap_bytes)
                        building[namespace] = writer
                        for document in documents(stored):
                            writer.add_document(document)
                        while len(building) > self.open_writers:
                            _, done = building.popitem(last=False)
                            done.commit()
                            done.wait_merging_threads()
                for writer in building.values():
                    writer.commit()
            except BaseException:
                for writer in building.values():
                    writer.rollback()
                    writer.wait_merging_threads()
                shutil.rmtree(root, ignore_errors=True)
                raise
            for writer in building.values():
                writer.wait_merging_threads()
            for namespace in list(self._writers):
                self._close_writer(namespace)
            old = self.generation
            self._switch(generation)
            with self._pool_lock:
                self._indexes.clear()
                self.generation = generation
                self._counts = None
            shutil.rmtree(self.path / old, ignore_errors=True)

    def erase_namespace(self, namespace: str) -> None:
        """Delete the namespace's index folder: none of its words stays in any file."""
        with self._stripe(namespace):
            self._close_writer(namespace)
            folder = self._folder(namespace)
            erased = folder.with_name(f".erased-{folder.name}")
            with self._pool_lock:
                # Out of the pool and out of reach at once: no search reopens it.
                self._indexes.pop(namespace, None)
                if folder.exists():
                    os.replace(folder, erased)
                if self._counts is not None:
                    self._counts.pop(namespace, None)
            shutil.rmtree(erased, ignore_errors=True)

    def optimize(self) -> None:
        """For each namespace: let its merges finish, then drop the files no longer used."""
        for namespace in self.namespaces():
            with self._stripe(namespace):
                index = self._index(namespace)
                if index is None:
                    continue
                self._close_writer(namespace)
                writer = index.writer(self.heap_bytes)
                writer.garbage_collect_files()
                self._give_back(namespace, writer)

    def count(self) -> int:
        """The entries indexed (not their passages), over every namespace."""
        if self._counts is None:
            with self._every_stripe():
                counts = {}
                for namespace in self.namespaces():
                    index = self._index(namespace)
                    if index is not None:
                        counts[namespace] = index.count()
                with self._pool_lock:
                    self._counts = counts
        with self._pool_lock:
            return sum(self._counts.values()) if self._counts is not None else 0

    def clear(self) -> None:
        self.replace_all(())

    def close(self) -> None:
        self._committers.shutdown()
        with self._every_stripe():
            for namespace in list(self._writers):
                self._close_writer(namespace)
            with self._pool_lock:
                self._indexes.clear()
