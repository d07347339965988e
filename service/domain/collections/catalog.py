"""Collections of markdown files kept searchable as entries, one entry per chunk."""

from __future__ import annotations

import hashlib
import posixpath
import time
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import PurePosixPath

from schemas.vocabulary import METADATA_VALUE_CHARS
from service.domain.collections.folders import LEAVES, FolderRules
from service.domain.collections.markdown import chunk_markdown, title_of
from service.domain.entries import Entry, entry_key
from service.domain.memory import Lifecycle, Writer
from service.domain.memory.bounds import breaches
from service.domain.model import Collection, IndexedFile, Listing
from service.domain.ports import Catalog, Files
from service.errors import Conflict, Forbidden
from service.settings import ChunkingSettings

FILE_BATCH = 32
TITLE_LINES = 100
"""A document's title is its first heading within this many lines, else its file name."""


@dataclass
class ScanReport:
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    chunks: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """What the scan did not index, relative to the collection's folder, with the reason;
    each keeps what an earlier scan indexed of it."""


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


@dataclass(eq=False)
class Collections:
    """Scans collections into entries (written by the ``Writer``, updated and deleted by the
    ``Lifecycle`` of the memory), re-embedding changed files only, within the folders and
    bounds of ``rules``."""

    catalog: Catalog
    writer: Writer
    lifecycle: Lifecycle
    files: Files
    chunking: ChunkingSettings
    _: KW_ONLY
    rules: FolderRules
    clock: Callable[[], float] = time.time
    _scanning: dict[str, tuple[int, int]] = field(default_factory=dict, init=False, repr=False)

    def all(self) -> list[Collection]:
        return self.catalog.all()

    def progress(self, collection: Collection) -> tuple[int, int] | None:
        """Files done and files in all, while a scan of ``collection`` runs; else None."""
        return self._scanning.get(collection.id)

    def refusal(self, folder: str) -> str | None:
        """Why no collection may read ``folder`` (absolute, resolved where it exists)."""
        return self.rules.refusal(folder, self.files.folder)

    def refusal_at(self, path: str) -> str | None:
        """Why no collection may have its folder at ``path`` as given (a registration, an
        import): judged where it leads when it is a folder here, as written when not."""
        return self.refusal(self.files.folder(path) or posixpath.normpath(path))

    def listing(self, folder: str, mask: str) -> Listing:
        """The files a collection of ``folder`` and ``mask`` reads, up to the bound."""
        return self.files.list(folder, mask, limit=self.rules.max_files)

    def too_many(self, mask: str) -> str:
        """What a listing past the bound says."""
        return (
            f"holds more than {self.rules.max_files} files matching {mask!r} "
            "(STRATA_MAX_COLLECTION_FILES)"
        )

    def scan(
        self, collection: Collection, actor: str = "", listing: Listing | None = None
    ) -> ScanReport:
        """Index what changed in the collection's folder since the last scan (``listing``:
        one made just before, by ``listing``). Refused with Conflict, nothing changed, when
        the folder is not on this server, may no longer be read (the roots changed, a link
        on its path points elsewhere), or holds more files than the bound."""
        where = f"the folder of collection {collection.name!r}, {collection.path},"
        folder = self.files.folder(collection.path)
        if folder is None:
            # Another replica's folder, or one unmounted: scanning would drop every file.
            raise Conflict(
                f"{where} is not on this server; scan it on the server (replica) that has it"
            )
        if (why := self.refusal(folder)) is not None:
            raise Conflict(f"{where} {why}; nothing was changed")
        if listing is None:
            listing = self.listing(collection.path, collection.mask)
        if not listing.complete:
            raise Conflict(f"{where} {self.too_many(collection.mask)}; nothing was changed")
        self._scanning[collection.id] = (0, len(listing.paths))
        try:
            return self._scan(collection, listing, actor)
        finally:
            self._scanning.pop(collection.id, None)

    def _scan(self, collection: Collection, listing: Listing, actor: str) -> ScanReport:
        report = ScanReport(skipped=list(listing.skipped))
        known = self.catalog.files(collection.id)
        paths = listing.paths
        seen: set[str] = set()
        batch: list[tuple[str, list[Entry], str, str]] = []
        for done, path in enumerate(paths):
            # Files up to this one are hashed; those in `batch` are not yet indexed.
            self._scanning[collection.id] = (done - len(batch), len(paths))
            seen.add(path)
            read = self._read(collection, path)
            if isinstance(read, str):
                report.skipped.append((path, read))
                continue
            data, text = read
            digest = hashlib.sha256(data).hexdigest()
            if path in known and known[path].hash == digest:
                report.unchanged += 1
                if self.catalog.text(collection.id, path) is None:  # indexed before texts
                    self.catalog.set_file(collection.id, known[path], text)
                continue
            made = self.entries_for(collection, path, text)
            if unfit := next((e for m in made for e in breaches(m, self.chunking)), None):
                report.skipped.append(
                    (path, f"a chunk out of bounds ({unfit.field}: {unfit.message})")
                )
                continue
            if path in known:
                report.changed += 1
            else:
                report.added += 1
            batch.append((path, made, text, digest))
            if len(batch) >= FILE_BATCH:
                report.chunks += self._index(collection, batch, known, actor)
                batch = []
        report.chunks += self._index(collection, batch, known, actor)
        report.skipped.sort()
        skipped = {where for where, _ in report.skipped}
        for path in sorted(set(known) - seen):
            if not _kept(path, skipped):
                self._forget(collection, known[path], actor)
                report.removed += 1
        self.catalog.scanned(collection.id, self.clock())
        return report

    def _read(self, collection: Collection, path: str) -> tuple[bytes, str] | str:
        """A listed file's bytes and text, or why it is skipped: it vanished, cannot be
        read, now leads out of the folder, is over the size bound or is not UTF-8 text."""
        bound = self.rules.max_file_bytes
        try:
            data = self.files.read(collection.path, path, max_bytes=bound)
        except Forbidden:
            return LEAVES
        except OSError as exc:
            return f"cannot be read ({exc.strerror or exc})"
        if data is None:
            return "gone, or no longer a regular file"
        if len(data) > bound:
            try:
                size = self.files.size(collection.path, path)
            except (OSError, Forbidden):
                size = None
            shown = f"{size} bytes, over" if size is not None and size > bound else "over"
            return f"{shown} the {bound}-byte file bound"
        if b"\x00" in data:
            return "not text: it holds NUL bytes"
        try:
            return data, data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"not UTF-8 text (byte {exc.start})"

    def _index(
        self,
        collection: Collection,
        batch: Sequence[tuple[str, list[Entry], str, str]],
        known: dict[str, IndexedFile],
        actor: str,
    ) -> int:
        entries: list[Entry] = []
        stale: list[str] = []
        files: list[tuple[IndexedFile, str]] = []
        for path, made, text, digest in batch:
            entries.extend(made)
            old = known.get(path)
            if old is not None:
                stale += [
                    entry_key(collection.namespace, chunk_id(collection, path, n))
                    for n in range(len(made), old.chunks)
                ]
            files.append((IndexedFile(path, digest, len(made)), text))
        if entries:
            self.writer.write(entries, actor)
        if stale:
            self.lifecycle.delete(stale, actor)
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
                    "title": title[:METADATA_VALUE_CHARS],
                    "heading": chunk.heading[:METADATA_VALUE_CHARS],
                    "line_start": chunk.first,
                    "line_end": chunk.last,
                },
            )
            for n, chunk in enumerate(chunk_markdown(text, size.words, size.overlap))
        ]

    def _forget(self, collection: Collection, indexed: IndexedFile, actor: str) -> None:
        keys = [
            entry_key(collection.namespace, chunk_id(collection, indexed.path, n))
            for n in range(indexed.chunks)
        ]
        self.lifecycle.delete(keys, actor)
        self.catalog.remove_file(collection.id, indexed.path)

    def remove(self, collection: Collection, actor: str = "") -> None:
        for indexed in self.catalog.files(collection.id).values():
            self._forget(collection, indexed, actor)
        self.catalog.remove(collection.id)

    def rename(self, collection: Collection, new_name: str, actor: str = "") -> Collection:
        """Rename; the chunks keep their ids and vectors, their ``file`` paths follow."""
        renamed = replace(collection, name=new_name)
        self.catalog.rename(collection.id, new_name)
        for indexed in self.catalog.files(collection.id).values():
            keys = [
                entry_key(collection.namespace, chunk_id(collection, indexed.path, n))
                for n in range(indexed.chunks)
            ]
            place = {"collection": new_name, "file": document_path(renamed, indexed.path)}
            self.lifecycle.update_metadata(keys, place, actor)
        return renamed


def _kept(path: str, skipped: set[str]) -> bool:
    """Whether ``path`` was skipped, or is inside a folder that was (``.``: the whole
    folder): it keeps what an earlier scan indexed of it."""
    return path in skipped or any(str(up) in skipped for up in PurePosixPath(path).parents)
