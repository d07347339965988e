"""Collections and their documents as the wire types of ``schemas.wire.collections``."""

from __future__ import annotations

from schemas import wire
from service.application.collections import CollectionView, Scanned
from service.application.documents import Document, Documents
from service.lib.fields import fields_of
from service.present.times import format_time


def collection_out(view: CollectionView) -> wire.CollectionOut:
    c = view.collection
    return wire.CollectionOut(
        **fields_of(c, "name", "namespace", "path", "mask", "tier"),
        files=view.files,
        created_at=format_time(c.created_at) or "",
        scanned_at=format_time(c.scanned_at),
        scanning=wire.ScanProgress(*view.scanning) if view.scanning else None,
    )


def scan_out(scanned: Scanned) -> wire.ScanOut:
    report = scanned.report
    return wire.ScanOut(
        collection=collection_out(scanned.view),
        **fields_of(report, "added", "changed", "removed", "unchanged", "chunks"),
        skipped=[
            wire.Skipped(f"{scanned.view.collection.name}/{path}".removesuffix("/."), reason)
            for path, reason in report.skipped
        ],
    )


def document_out(document: Document) -> wire.DocumentOut:
    first = document.first_line
    shown = document.lines
    width = len(str(first + len(shown)))
    numbered = "\n".join(f"{n:>{width}}| {line}" for n, line in enumerate(shown, start=first))
    return wire.DocumentOut(
        path=document.path,
        title=document.title,
        first_line=first,
        last_line=first + len(shown) - 1,
        total_lines=document.total_lines,
        text=numbered,
    )


def documents_out(found: Documents) -> wire.DocumentsResponse:
    return wire.DocumentsResponse(
        [document_out(d) for d in found.documents],
        [wire.Skipped(path, reason) for path, reason in found.skipped],
    )
