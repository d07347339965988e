"""Reading the documents of collections, by path or by pattern.

Only documents a scan indexed are served (so a collection's mask bounds what its root
exposes); a batch reads each document once, up to a number of documents and of bytes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from schemas import wire
from service.application.collections import CollectionUseCases
from service.auth import Principal
from service.domain.collections import (
    TITLE_LINES,
    Collection,
    document_path,
    leaves_root,
    title_from,
)
from service.domain.globs import glob_match
from service.domain.ports import Catalog, Files
from service.errors import Forbidden, InvalidInput, NotFound

URI = "strata://"
NOT_INDEXED = "not an indexed document"


@dataclass(frozen=True)
class Document:
    path: str
    """``<collection>/<relative path>``."""
    title: str
    first_line: int
    lines: list[str]
    """The lines asked for, from ``first_line`` on."""
    total_lines: int


@dataclass(frozen=True)
class Documents:
    documents: list[Document]
    skipped: list[tuple[str, str]]
    """Paths not returned, with the reason."""


class DocumentUseCases:
    def __init__(
        self,
        collections: CollectionUseCases,
        catalog: Catalog,
        files: Files,
        *,
        max_documents: int,
        max_bytes: int,
    ) -> None:
        self.collections = collections
        self.catalog = catalog
        self.files = files
        self.max_documents = max_documents
        """Most documents a batch returns."""
        self.max_bytes = max_bytes
        """Most bytes of files a batch returns in all."""

    def read(
        self, principal: Principal, path: str, first: int = 1, count: int | None = None
    ) -> Document:
        """Lines of one indexed document: ``path`` is ``<collection>/<relative path>``.
        Only the lines asked for (and the first few, for the title) are decoded."""
        if first < 1:
            raise InvalidInput.one("from", "must be at least 1")
        if count is not None and count < 1:
            raise InvalidInput.one("lines", "must be at least 1")
        collection, relative = self._locate(principal, path)
        if leaves_root(relative):
            raise Forbidden(f"path {relative!r} leaves the collection root")
        missing = NotFound(f"no document {document_path(collection, relative)}")
        if self.catalog.file(collection.id, relative) is None:
            raise missing
        found = self.files.read_lines(collection.path, relative, first, count, TITLE_LINES)
        if found is None:
            raise missing
        return Document(
            path=document_path(collection, relative),
            title=title_from(found.head, relative),
            first_line=first,
            lines=found.lines,
            total_lines=found.total,
        )

    def read_many(self, principal: Principal, request: wire.DocumentsRequest) -> Documents:
        """Indexed documents matching a glob or a comma-separated list, each once, in order,
        until ``max_documents`` of them or ``max_bytes`` in all; the rest, and those missing,
        not indexed or over ``request.max_bytes``, are skipped with the reason."""
        documents: list[Document] = []
        skipped: list[tuple[str, str]] = []
        seen: set[str] = set()
        total = 0
        past: str | None = None  # the bound passed, once one is: the rest are skipped for it
        for collection, relative in self._expand(principal, request.pattern):
            path = document_path(collection, relative)
            if path in seen:
                continue
            seen.add(path)
            if past is None and len(documents) >= self.max_documents:
                past = f"over the {self.max_documents}-document bound"
            if past is not None:
                skipped.append((path, past))
                continue
            if self.catalog.file(collection.id, relative) is None:
                skipped.append((path, NOT_INDEXED))
                continue
            try:
                size, data = self._read_within(collection, relative, request.max_bytes, total)
            except Forbidden:
                skipped.append((path, "leaves the collection root"))
                continue
            if size is None:
                skipped.append((path, "no such file"))
            elif size > request.max_bytes:
                skipped.append((path, f"{size} bytes, over max_bytes"))
            elif total + size > self.max_bytes or data is None:
                past = f"over the {self.max_bytes}-byte total bound"
                skipped.append((path, past))
            else:
                total += size
                documents.append(_document(collection, relative, data))
        return Documents(documents, skipped)

    def _read_within(
        self, collection: Collection, relative: str, max_bytes: int, total: int
    ) -> tuple[int | None, bytes | None]:
        """The file's size, and its bytes when they fit both bounds (the size is checked
        again once read, as the file may have grown)."""
        size = self.files.size(collection.path, relative)
        if size is None or size > max_bytes or total + size > self.max_bytes:
            return size, None
        data = self.files.read(collection.path, relative)
        return (None, None) if data is None else (len(data), data)

    def _locate(self, principal: Principal, path: str) -> tuple[Collection, str]:
        """The collection a path names and the path within it, written as a scan lists it."""
        name, _, relative = path.removeprefix(URI).partition("/")
        if not relative:
            raise InvalidInput.one("path", "expected <collection>/<relative path>")
        return self.collections.find(principal, name), PurePosixPath(relative).as_posix()

    def _expand(self, principal: Principal, pattern: str) -> Iterator[tuple[Collection, str]]:
        if "," in pattern or not any(ch in pattern for ch in "*?["):
            for path in pattern.split(","):
                if path.strip():
                    yield self._locate(principal, path.strip())
            return
        plain = pattern.removeprefix(URI)
        for collection in self.catalog.all():
            if principal.may_use(collection.namespace):
                for relative in sorted(self.catalog.files(collection.id)):
                    if glob_match(plain, document_path(collection, relative)):
                        yield collection, relative


def _document(collection: Collection, relative: str, data: bytes) -> Document:
    every = data.decode("utf-8", errors="replace").splitlines()
    return Document(
        path=document_path(collection, relative),
        title=title_from(every, relative),
        first_line=1,
        lines=every,
        total_lines=len(every),
    )
