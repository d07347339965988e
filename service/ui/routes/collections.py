"""Collections of markdown files: their files, re-scans (admins) and a document viewer."""

from __future__ import annotations

from litestar import get, post
from litestar.response import Redirect, Template

from schemas import wire
from service.edge.deps import CallerDep
from service.edge.params import AnyRequest, CollectionName, DocumentPath, FirstLine
from service.present.collections import collection_out, scan_out
from service.ui.links import DOCUMENT_LINES, collection_link, page_start, query
from service.ui.pages import page, redirect

REPORT = ("added", "changed", "removed", "unchanged", "chunks", "skipped")
"""A re-scan's counts, carried to the page it redirects to."""
SKIPPED_SHOWN = 10
"""Most skipped files, with their reasons, carried to that page; the count says the rest."""


@get("/collections", name="console-collections", sync_to_thread=True)
def collections_page(request: AnyRequest, caller: CallerDep) -> Template:
    found = [collection_out(v) for v in caller.services.collections.list(caller.principal)]
    return page(request, "collections.html", section="collections", collections=found)


@get("/collections/{name:str}", name="console-collection", sync_to_thread=True)
def collection_page(request: AnyRequest, name: CollectionName, caller: CallerDep) -> Template:
    shown = collection_out(caller.services.collections.show(caller.principal, name))
    params = request.query_params
    scanned = {k: int(v) for k in REPORT if (v := params.get(k, "")) and str(v).isdigit()}
    return page(
        request,
        "collection.html",
        section="collections",
        collection=shown,
        files=caller.services.collections.indexed_files(caller.principal, name),
        scanned=scanned if len(scanned) == len(REPORT) else None,
        skipped=[str(s) for s in params.getall("skip", [])][:SKIPPED_SHOWN],
    )


@get("/collections/{name:str}/progress", name="console-scan-progress", sync_to_thread=True)
def scan_progress(name: CollectionName, caller: CallerDep) -> wire.CollectionOut:
    """The collection as JSON, with ``scanning`` while a scan runs; polled by the page."""
    return collection_out(caller.services.collections.show(caller.principal, name))


@post("/collections/{name:str}/rescan", name="console-rescan")
async def rescan(request: AnyRequest, name: CollectionName, caller: CallerDep) -> Redirect:
    """Re-scan (admins); answers once done, with the counts and the first files skipped
    for the page to show."""
    done = scan_out(await caller.write(caller.services.collections.scan, name))
    counts = {k: getattr(done, k) for k in REPORT if k != "skipped"}
    skipped = [f"{s.path}: {s.reason}" for s in done.skipped]
    link = collection_link(done.collection.name)
    return redirect(
        request, query(link, **counts, skipped=len(skipped), skip=skipped[:SKIPPED_SHOWN])
    )


@get("/documents", name="console-document", sync_to_thread=True)
def document_page(
    request: AnyRequest, caller: CallerDep, path: DocumentPath, from_line: FirstLine = 1
) -> Template:
    """A document's lines, numbered, each with an anchor (``#L12``)."""
    start = page_start(from_line)
    found = caller.services.documents.read(caller.principal, path, start, DOCUMENT_LINES)
    numbered = list(enumerate(found.lines, start=start))
    following = start + DOCUMENT_LINES
    return page(
        request,
        "document.html",
        section="collections",
        document=found,
        collection=found.path.split("/", 1)[0],
        lines=numbered,
        previous=start - DOCUMENT_LINES if start > 1 else None,
        following=following if following <= found.total_lines else None,
    )
