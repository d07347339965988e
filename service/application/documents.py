"""Reading the documents of collections, by path or by pattern.

Only documents a scan indexed are served (so a collection's mask bounds what its root
exposes), as the text they were indexed from, which the catalog keeps: any replica of a
cluster serves them, whether or not it has the folder. A batch reads each document once,
up to a number of documents and of bytes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import KW_ONLY, dataclass
from pathlib import PurePosixPath

from schemas import wire
from service.application.auth import Principal
from service.application.collections import CollectionUseCases
from service.domain.collections.catalog import document_path, leaves_root, title_from
from service.domain.collections.globs import MAX_GLOB_LENGTH, glob_match
from service.domain.model import Collection
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


@dataclass(eq=False)
class DocumentUseCases:
    collections: CollectionUseCases
    catalog: Catalog
    files: Files
    _: KW_ONLY
    max_documents: int
    """Most documents a batch returns."""
    max_bytes: int
    """Most bytes of files a batch returns in all."""

    def read(
        self,
        principal: Principal,
        path: str,
        first: int = 1,
        count: int | None = None,
        namespace: str | None = None,
    ) -> Document:
        """Lines of one indexed document: ``path`` is ``<collection>/<relative path>``, the
        collection found as ``CollectionUseCases.find`` finds it."""
        if first < 1:
            raise InvalidInput.one("from", "must be at least 1")
        if count is not None and count < 1:
            raise InvalidInput.one("lines", "must be at least 1")
        collection, relative = self._locate(principal, path, namespace)
        if leaves_root(relative):
            raise Forbidden(f"path {relative!r} leaves the collection root")
        text = self._text(collection, relative)
        if text is None:
            raise NotFound(f"no document {document_path(collection, relative)}")
        return _document(collection, relative, text, first, count)

    def read_many(self, principal: Principal, request: wire.DocumentsRequest) -> Documents:
        """Indexed documents matching a glob or a comma-separated list, each once, in order,
        until ``max_documents`` of them or ``max_bytes`` (of UTF-8) in all; the rest, and
        those not indexed or over ``request.max_bytes``, are skipped with the reason."""
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
            try:
                text = self._text(collection, relative)
            except Forbidden:
                skipped.append((path, "leaves the collection root"))
                continue
            if text is None:
                known = self.catalog.file(collection.id, relative) is not None
                skipped.append((path, "no such file" if known else NOT_INDEXED))
                continue
            size = len(text.encode("utf-8"))
            if size > request.max_bytes:
                skipped.append((path, f"{size} bytes, over max_bytes"))
            elif total + size > self.max_bytes:
                past = f"over the {self.max_bytes}-byte total bound"
                skipped.append((path, past))
            else:
                total += size
                documents.append(_document(collection, relative, text))
        return Documents(documents, skipped)

    def _text(self, collection: Collection, relative: str) -> str | None:
        """The text the file was indexed from; None when it is not indexed. A file indexed
        before texts were kept (and unchanged since) is read from this replica's disk."""
        text = self.catalog.text(collection.id, relative)
        if text is not None or self.catalog.file(collection.id, relative) is None:
            return text
        try:
            data = self.files.read(collection.path, relative)
        except OSError:  # unreadable here now (permission denied, a link loop)
            return None
        return None if data is None else data.decode("utf-8", errors="replace")

    def _locate(
        self, principal: Principal, path: str, namespace: str | None = None
    ) -> tuple[Collection, str]:
        """The collection a path names and the path within it, written as a scan lists it."""
        name, _, relative = path.removeprefix(URI).partition("/")
        if not relative:
            raise InvalidInput.one("path", "expected <collection>/<relative path>")
        found = self.collections.find(principal, name, namespace)
        return found, PurePosixPath(relative).as_posix()

    def _expand(self, principal: Principal, pattern: str) -> Iterator[tuple[Collection, str]]:
        if "," in pattern or not any(ch in pattern for ch in "*?["):
            for path in pattern.split(","):
                if path.strip():
                    yield self._locate(principal, path.strip())
            return
        plain = pattern.removeprefix(URI)
        if len(plain) > MAX_GLOB_LENGTH:
            raise InvalidInput.one(
                "pattern",
                f"a glob of at most {MAX_GLOB_LENGTH} characters (a list of paths may be longer)",
            )
        for collection in self.catalog.all():
            if principal.may_use(collection.namespace):
                for relative in sorted(self.catalog.files(collection.id)):
                    if glob_match(plain, document_path(collection, relative)):
                        yield collection, relative


def _document(
    collection: Collection, relative: str, text: str, first: int = 1, count: int | None = None
) -> Document:
    """The document's lines from ``first`` (from 1), ``count`` of them (None: to the end)."""
    every = text.splitlines()
    end = None if count is None else first - 1 + count
    return Document(
        path=document_path(collection, relative),
        title=title_from(every, relative),
        first_line=first,
        lines=every[first - 1 : end],
        total_lines=len(every),
    )
