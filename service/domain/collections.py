"""Collections of markdown files kept searchable as entries, one entry per chunk."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from service.domain.markdown import chunk_markdown, title_of
from service.domain.memory import Memory
from service.domain.models import Entry, entry_key
from service.domain.ports import Catalog, Files
from service.settings import ChunkingSettings

FILE_BATCH = 32
TITLE_LINES = 100
"""A document's title is its first heading within this many lines, else its file name."""


@dataclass(frozen=True)
class Collection:
    """A folder of files kept searchable in one namespace and tier."""

    id: str
    name: str
    namespace: str
    path: str
    mask: str
    tier: str
    created_at: float
    scanned_at: float | None = None


@dataclass(frozen=True)
class IndexedFile:
    path: str
    hash: str
    chunks: int


@dataclass
class ScanReport:
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    chunks: int = 0
    skipped: list[str] | None = None


def chunk_id(collection: Collection, path: str, number: int) -> str:
    """Stable across scans: the collection, the file and the chunk's position."""
    digest = hashlib.sha1(f"{collection.id}/{path}".encode()).hexdigest()[:16]
    return f"file.{digest}.{number}"


def document_path(collection: Collection, path: str) -> str:
    return f"{collection.name}/{path}"


def leaves_root(relative: str) -> bool:
    """Whether a relative path would leave its root as written: absolute, through ``..``,
    or with a backslash or NUL (links pointing out are the file store's to catch)."""
    rel = PurePosixPath(relative)
    return rel.is_absolute() or ".." in rel.parts or "\\" in relative or "\x00" in relative


def title_from(lines: Sequence[str], path: str) -> str:
    """A document's title from its first lines: the first heading among its first
    ``TITLE_LINES``, else the file name."""
    return title_of("\n".join(lines[:TITLE_LINES]), PurePosixPath(path).name)


class Collections:
    """Scans collections into entries through ``Memory``, re-embedding changed files only."""

    def __init__(
        self,
        catalog: Catalog,
        memory: Memory,
        files: Files,
        chunking: ChunkingSettings,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.catalog = catalog
        self.memory = memory
        self.files = files
        self.chunking = chunking
        self.clock = clock
        self._scanning: dict[str, tuple[int, int]] = {}

    def all(self) -> list[Collection]:
        return self.catalog.all()

    def progress(self, collection: Collection) -> tuple[int, int] | None:
        """Files done and files in all, while a scan of ``collection`` runs; else None."""
        return self._scanning.get(collection.id)

    def scan(self, collection: Collection, actor: str = "") -> ScanReport:
        paths = self.files.list(collection.path, collection.mask).paths
        self._scanning[collection.id] = (0, len(paths))
        try:
            return self._scan(collection, paths, actor)
        finally:
            self._scanning.pop(collection.id, None)

    def _scan(self, collection: Collection, paths: list[str], actor: str) -> ScanReport:
        skipped: list[str] = []
        report = ScanReport(skipped=skipped)
        known = self.catalog.files(collection.id)
        seen: set[str] = set()
        batch: list[tuple[str, bytes, str]] = []
        for done, path in enumerate(paths):
            # Files up to this one are hashed; those in `batch` are not yet indexed.
            self._scanning[collection.id] = (done - len(batch), len(paths))
            seen.add(path)
            try:
                data = self.files.read(collection.path, path)
            except OSError as exc:
                skipped.append(f"{path}: {exc.strerror}")
                continue
            if data is None:
                skipped.append(f"{path}: no longer there")
                continue
            digest = hashlib.sha256(data).hexdigest()
            if path in known and known[path].hash == digest:
                report.unchanged += 1
                if self.catalog.text(collection.id, path) is None:  # indexed before texts
                    text = data.decode("utf-8", errors="replace")
                    self.catalog.set_file(collection.id, known[path], text)
                continue
            if path in known:
                report.changed += 1
            else:
                report.added += 1
            batch.append((path, data, digest))
            if len(batch) >= FILE_BATCH:
                report.chunks += self._index(collection, batch, known, actor)
                batch = []
        report.chunks += self._index(collection, batch, known, actor)
        for path in sorted(set(known) - seen):
            self._forget(collection, known[path], actor)
            report.removed += 1
        self.catalog.scanned(collection.id, self.clock())
        return report

    def _index(
        self,
        collection: Collection,
        batch: Sequence[tuple[str, bytes, str]],
        known: dict[str, IndexedFile],
        actor: str,
    ) -> int:
        entries: list[Entry] = []
        stale: list[str] = []
        files: list[tuple[IndexedFile, str]] = []
        for path, data, digest in batch:
            text = data.decode("utf-8", errors="replace")
            made = self.entries_for(collection, path, text)
            entries.extend(made)
            old = known.get(path)
            if old is not None:
                stale += [
                    entry_key(collection.namespace, chunk_id(collection, path, n))
                    for n in range(len(made), old.chunks)
                ]
            files.append((IndexedFile(path, digest, len(made)), text))
        if entries:
            self.memory.write(entries, actor)
        if stale:
            self.memory.delete(stale, actor)
        for indexed, text in files:
            self.catalog.set_file(collection.id, indexed, text)
        return len(entries)

    def entries_for(self, collection: Collection, path: str, text: str) -> list[Entry]:
        title = title_from(text.splitlines(), path)
        now = self.clock()
        size = self.chunking
        return [
            Entry(
                id=chunk_id(collection, path, n),
                namespace=collection.namespace,
                tier=collection.tier,  # type: ignore[arg-type]
                text=chunk.text,
                timestamp=now,
                chain_type="file",
                metadata={
                    "collection": collection.name,
                    "file": document_path(collection, path),
                    "title": title,
                    "heading": chunk.heading,
                    "line_start": chunk.first,
                    "line_end": chunk.last,
                },
            )
            for n, chunk in enumerate(chunk_markdown(text, size.chunk_words, size.chunk_overlap))
        ]

    def _forget(self, collection: Collection, indexed: IndexedFile, actor: str) -> None:
        keys = [
            entry_key(collection.namespace, chunk_id(collection, indexed.path, n))
            for n in range(indexed.chunks)
        ]
        self.memory.delete(keys, actor)
        self.catalog.remove_file(collection.id, indexed.path)

    def remove(self, collection: Collection, actor: str = "") -> None:
        for indexed in self.catalog.files(collection.id).values():
            self._forget(collection, indexed, actor)
        self.catalog.remove(collection.id)

    def rename(self, collection: Collection, new_name: str, actor: str = "") -> Collection:
        """Rename; the chunks keep their ids and vectors, their ``file`` paths follow."""
        renamed = replace(collection, name=new_name)
        self.catalog.rename(collection.name, new_name)
        for indexed in self.catalog.files(collection.id).values():
            keys = [
                entry_key(collection.namespace, chunk_id(collection, indexed.path, n))
                for n in range(indexed.chunks)
            ]
            place = {"collection": new_name, "file": document_path(renamed, indexed.path)}
            self.memory.update_metadata(keys, place, actor)
        return renamed
