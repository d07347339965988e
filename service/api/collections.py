"""Collections of markdown files, and the documents in them."""

from __future__ import annotations

import fnmatch
import uuid
from pathlib import Path
from typing import Annotated

from litestar import Controller, delete, get, patch, post
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter

from schemas import wire
from service.api.convert import format_time
from service.api.deps import PrincipalDep, ResourcesDep
from service.auth import Principal
from service.domain.collections import Collection
from service.domain.markdown import title_of
from service.errors import Conflict, InvalidInput, NotFound
from service.resources import Resources
from service.stores.files import resolve_inside

URI = "strata://"


class CollectionsController(Controller):
    path = "/v1/collections"
    tags = ["collections"]

    @post("", status_code=201, sync_to_thread=True)
    def add(
        self,
        data: JSONBody[wire.CollectionRequest],
        resources: ResourcesDep,
        principal: PrincipalDep,
    ) -> wire.ScanOut:
        """Register a folder (admin: it reads the server's disk) and index it."""
        principal.require_admin()
        namespace = principal.namespace(data.namespace)
        root = Path(data.path).expanduser()
        if not root.is_absolute():
            raise InvalidInput.one("path", "must be an absolute path on the server")
        if not root.is_dir():
            raise InvalidInput.one("path", f"{data.path} is not a directory")
        if resources.catalog.get(data.name) is not None:
            raise Conflict(f"a collection named {data.name!r} exists")
        collection = Collection(
            uuid.uuid4().hex,
            data.name,
            namespace,
            str(root.resolve()),
            data.mask,
            data.tier,
            resources.clock(),
        )
        resources.catalog.add(collection)
        return _scan(resources, collection, principal)

    @get("", sync_to_thread=True)
    def list_collections(
        self, resources: ResourcesDep, principal: PrincipalDep
    ) -> wire.CollectionsResponse:
        visible = [c for c in resources.catalog.all() if _visible(principal, c)]
        return wire.CollectionsResponse([_out(resources, c) for c in visible])

    @get("/{name:str}", sync_to_thread=True)
    def show(
        self, name: FromPath[str], resources: ResourcesDep, principal: PrincipalDep
    ) -> wire.CollectionOut:
        return _out(resources, _find(resources, principal, name))

    @post("/{name:str}/update", status_code=200, sync_to_thread=True)
    def update(
        self, name: FromPath[str], resources: ResourcesDep, principal: PrincipalDep
    ) -> wire.ScanOut:
        """Re-scan: changed files are re-embedded, removed ones leave the index."""
        return _scan(resources, _find(resources, principal, name), principal)

    @patch("/{name:str}", sync_to_thread=True)
    def rename(
        self,
        name: FromPath[str],
        data: JSONBody[wire.RenameRequest],
        resources: ResourcesDep,
        principal: PrincipalDep,
    ) -> wire.CollectionOut:
        principal.require_admin()
        collection = _find(resources, principal, name)
        if resources.catalog.get(data.name) is not None:
            raise Conflict(f"a collection named {data.name!r} exists")
        renamed = resources.collections.rename(collection, data.name, principal.name)
        return _out(resources, renamed)

    @delete("/{name:str}", status_code=200, sync_to_thread=True)
    def remove(
        self, name: FromPath[str], resources: ResourcesDep, principal: PrincipalDep
    ) -> wire.CollectionOut:
        """Forget a collection and its chunks; the files themselves are left alone."""
        principal.require_admin()
        collection = _find(resources, principal, name)
        shown = _out(resources, collection)
        resources.collections.remove(collection, principal.name)
        return shown


class DocumentsController(Controller):
    path = "/v1/documents"
    tags = ["collections"]

    @get("", sync_to_thread=True)
    def get_document_lines(
        self,
        resources: ResourcesDep,
        principal: PrincipalDep,
        path: FromQuery[str],
        from_line: Annotated[int, QueryParameter(name="from")] = 1,
        lines: FromQuery[int | None] = None,
    ) -> wire.DocumentOut:
        """A document's lines, numbered: ``path`` is ``<collection>/<relative path>``."""
        if from_line < 1:
            raise InvalidInput.one("from", "must be at least 1")
        if lines is not None and lines < 1:
            raise InvalidInput.one("lines", "must be at least 1")
        return read_document(resources, principal, path, from_line, lines)

    @post("/batch", status_code=200, sync_to_thread=True)
    def batch(
        self,
        data: JSONBody[wire.DocumentsRequest],
        resources: ResourcesDep,
        principal: PrincipalDep,
    ) -> wire.DocumentsResponse:
        """Documents matching a glob or a comma-separated list; big ones skipped, with a note."""
        return read_documents(resources, principal, data)


def read_document(
    resources: Resources,
    principal: Principal,
    path: str,
    first: int = 1,
    count: int | None = None,
) -> wire.DocumentOut:
    """Lines of one document, for REST and MCP alike."""
    collection, relative = _locate(resources, principal, path)
    return _document(collection, relative, _read(collection, relative), first, count)


def read_documents(
    resources: Resources, principal: Principal, request: wire.DocumentsRequest
) -> wire.DocumentsResponse:
    """Documents matching a pattern, skipping missing and oversized ones with a note."""
    documents: list[wire.DocumentOut] = []
    skipped: list[wire.Skipped] = []
    for path in _expand(resources, principal, request.pattern):
        collection, relative = _locate(resources, principal, path)
        target = resolve_inside(Path(collection.path), relative)
        size = target.stat().st_size if target.is_file() else -1
        if size < 0:
            skipped.append(wire.Skipped(path, "no such file"))
        elif size > request.max_bytes:
            skipped.append(wire.Skipped(path, f"{size} bytes, over max_bytes"))
        else:
            documents.append(_document(collection, relative, _read(collection, relative)))
    return wire.DocumentsResponse(documents, skipped)


def _visible(principal: Principal, collection: Collection) -> bool:
    return principal.namespaces is None or collection.namespace in principal.namespaces


def _find(resources: Resources, principal: Principal, name: str) -> Collection:
    collection = resources.catalog.get(name)
    if collection is None or not _visible(principal, collection):
        raise NotFound(f"no collection {name!r}")
    return collection


def _locate(resources: Resources, principal: Principal, path: str) -> tuple[Collection, str]:
    plain = path.removeprefix(URI)
    name, _, relative = plain.partition("/")
    if not relative:
        raise InvalidInput.one("path", "expected <collection>/<relative path>")
    return _find(resources, principal, name), relative


def _read(collection: Collection, relative: str) -> str:
    target = resolve_inside(Path(collection.path), relative)
    if not target.is_file():
        raise NotFound(f"no document {collection.name}/{relative}")
    return target.read_text(encoding="utf-8", errors="replace")


def _expand(resources: Resources, principal: Principal, pattern: str) -> list[str]:
    if "," in pattern or not any(ch in pattern for ch in "*?["):
        return [p.strip() for p in pattern.split(",") if p.strip()]
    plain = pattern.removeprefix(URI)
    found = []
    for collection in resources.catalog.all():
        if _visible(principal, collection):
            for relative in sorted(resources.catalog.files(collection.id)):
                if fnmatch.fnmatchcase(f"{collection.name}/{relative}", plain):
                    found.append(f"{collection.name}/{relative}")
    return found


def _document(
    collection: Collection, relative: str, text: str, first: int = 1, count: int | None = None
) -> wire.DocumentOut:
    all_lines = text.splitlines()
    shown = all_lines[first - 1 : first - 1 + count if count else None]
    width = len(str(first + len(shown)))
    numbered = "\n".join(f"{n:>{width}}| {line}" for n, line in enumerate(shown, start=first))
    return wire.DocumentOut(
        path=f"{collection.name}/{relative}",
        title=title_of(text, Path(relative).name),
        first_line=first,
        last_line=first + len(shown) - 1,
        total_lines=len(all_lines),
        text=numbered,
    )


def _scan(resources: Resources, collection: Collection, principal: Principal) -> wire.ScanOut:
    report = resources.collections.scan(collection, principal.name)
    fresh = resources.catalog.get(collection.name) or collection
    return wire.ScanOut(
        collection=_out(resources, fresh),
        added=report.added,
        changed=report.changed,
        removed=report.removed,
        unchanged=report.unchanged,
        chunks=report.chunks,
        skipped=report.skipped or [],
    )


def _out(resources: Resources, c: Collection) -> wire.CollectionOut:
    progress = resources.collections.progress(c)
    return wire.CollectionOut(
        name=c.name,
        namespace=c.namespace,
        path=c.path,
        mask=c.mask,
        tier=c.tier,  # type: ignore[arg-type]
        files=len(resources.catalog.files(c.id)),
        created_at=format_time(c.created_at) or "",
        scanned_at=format_time(c.scanned_at),
        scanning=wire.ScanProgress(*progress) if progress else None,
    )
