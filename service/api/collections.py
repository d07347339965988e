"""Collections of markdown files, and the documents in them."""

from __future__ import annotations

from litestar import Controller, delete, get, patch, post
from litestar.params import JSONBody

from schemas import wire
from service.edge.deps import CallerDep
from service.edge.openapi import problems
from service.edge.params import (
    CollectionName,
    CollectionNamespace,
    DocumentPath,
    FirstLine,
    LineCount,
)
from service.present.collections import collection_out, document_out, documents_out, scan_out


class CollectionsController(Controller):
    path = "/v1/collections"
    tags = ["collections"]

    @post("", status_code=201, responses=problems(409))
    async def add(self, data: JSONBody[wire.CollectionRequest], caller: CallerDep) -> wire.ScanOut:
        """Register a folder (admin: it reads the server's disk) and index it."""
        return scan_out(await caller.write(caller.services.collections.add, data))

    @get("", sync_to_thread=True)
    def list_collections(self, caller: CallerDep) -> wire.CollectionsResponse:
        views = caller.services.collections.list(caller.principal)
        return wire.CollectionsResponse([collection_out(v) for v in views])

    @get("/{name:str}", sync_to_thread=True, responses=problems(404, 409))
    def show(
        self, name: CollectionName, caller: CallerDep, namespace: CollectionNamespace = None
    ) -> wire.CollectionOut:
        return collection_out(caller.services.collections.show(caller.principal, name, namespace))

    @post("/{name:str}/update", status_code=200, responses=problems(404, 409))
    async def update(
        self, name: CollectionName, caller: CallerDep, namespace: CollectionNamespace = None
    ) -> wire.ScanOut:
        """Re-scan: changed files are re-embedded, removed ones leave the index."""
        scan = caller.services.collections.scan
        return scan_out(await caller.write(scan, name, namespace))

    @patch("/{name:str}", responses=problems(404, 409))
    async def rename(
        self,
        name: CollectionName,
        data: JSONBody[wire.RenameRequest],
        caller: CallerDep,
        namespace: CollectionNamespace = None,
    ) -> wire.CollectionOut:
        rename = caller.services.collections.rename
        renamed = await caller.write(rename, name, data.name, namespace)
        return collection_out(renamed)

    @delete("/{name:str}", status_code=200, responses=problems(404, 409))
    async def remove(
        self, name: CollectionName, caller: CallerDep, namespace: CollectionNamespace = None
    ) -> wire.CollectionOut:
        """Forget a collection and its chunks; the files themselves are left alone."""
        removed = await caller.write(caller.services.collections.remove, name, namespace)
        return collection_out(removed)


class DocumentsController(Controller):
    path = "/v1/documents"
    tags = ["collections"]

    @get("", sync_to_thread=True, responses=problems(404, 409))
    def get_document_lines(
        self,
        caller: CallerDep,
        path: DocumentPath,
        from_line: FirstLine = 1,
        lines: LineCount = None,
        namespace: CollectionNamespace = None,
    ) -> wire.DocumentOut:
        """A document's lines, numbered: ``path`` is ``<collection>/<relative path>``."""
        found = caller.services.documents.read(caller.principal, path, from_line, lines, namespace)
        return document_out(found)

    @post("/batch", status_code=200, sync_to_thread=True, responses=problems(404))
    def batch(
        self, data: JSONBody[wire.DocumentsRequest], caller: CallerDep
    ) -> wire.DocumentsResponse:
        """Documents matching a glob or a comma-separated list; big ones skipped, with a note."""
        return documents_out(caller.services.documents.read_many(caller.principal, data))
