"""Reading the documents of collections, by path or by pattern."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import PurePosixPath

from schemas import wire
from service.application.collections import CollectionUseCases
from service.auth import Principal
from service.domain.collections import Collection
from service.domain.markdown import title_of
from service.domain.ports import Catalog, Files
from service.errors import InvalidInput, NotFound

URI = "strata://"


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
    def __init__(self, collections: CollectionUseCases, catalog: Catalog, files: Files) -> None:
        self.collections = collections
        self.catalog = catalog
        self.files = files

    def read(
        self, principal: Principal, path: str, first: int = 1, count: int | None = None
    ) -> Document:
        """Lines of one document: ``path`` is ``<collection>/<relative path>``."""
        if first < 1:
            raise InvalidInput.one("from", "must be at least 1")
        if count is not None and count < 1:
            raise InvalidInput.one("lines", "must be at least 1")
        collection, relative = self._locate(principal, path)
        return _document(collection, relative, self._text(collection, relative), first, count)

    def read_many(self, principal: Principal, request: wire.DocumentsRequest) -> Documents:
        """Documents matching a glob or a comma-separated list; missing and oversized ones
        are skipped with the reason."""
        documents: list[Document] = []
        skipped: list[tuple[str, str]] = []
        for path in self._expand(principal, request.pattern):
            collection, relative = self._locate(principal, path)
            size = self.files.size(collection.path, relative)
            if size is None:
                skipped.append((path, "no such file"))
            elif size > request.max_bytes:
                skipped.append((path, f"{size} bytes, over max_bytes"))
            else:
                text = self._text(collection, relative)
                documents.append(_document(collection, relative, text))
        return Documents(documents, skipped)

    def _locate(self, principal: Principal, path: str) -> tuple[Collection, str]:
        name, _, relative = path.removeprefix(URI).partition("/")
        if not relative:
            raise InvalidInput.one("path", "expected <collection>/<relative path>")
        return self.collections.find(principal, name), relative

    def _text(self, collection: Collection, relative: str) -> str:
        data = self.files.read(collection.path, relative)
        if data is None:
            raise NotFound(f"no document {collection.name}/{relative}")
        return data.decode("utf-8", errors="replace")

    def _expand(self, principal: Principal, pattern: str) -> list[str]:
        if "," in pattern or not any(ch in pattern for ch in "*?["):
            return [p.strip() for p in pattern.split(",") if p.strip()]
        plain = pattern.removeprefix(URI)
        found = []
        for collection in self.catalog.all():
            if principal.may_use(collection.namespace):
                for relative in sorted(self.catalog.files(collection.id)):
                    if fnmatch.fnmatchcase(f"{collection.name}/{relative}", plain):
                        found.append(f"{collection.name}/{relative}")
        return found


def _document(
    collection: Collection, relative: str, text: str, first: int = 1, count: int | None = None
) -> Document:
    every = text.splitlines()
    shown = every[first - 1 : first - 1 + count if count else None]
    return Document(
        path=f"{collection.name}/{relative}",
        title=title_of(text, PurePosixPath(relative).name),
        first_line=first,
        lines=shown,
        total_lines=len(every),
    )
