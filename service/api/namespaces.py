"""A namespace whole: its export, its import and its erasure."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Annotated

from litestar import Controller, delete, get, post
from litestar.params import QueryParameter
from litestar.response import Stream

from schemas import wire
from service.application.importing import ImportReport
from service.domain.entries import Erasure
from service.edge.deps import CallerDep
from service.edge.openapi import problems
from service.edge.params import AnyRequest, NamespaceName
from service.errors import PayloadTooLarge
from service.present.times import format_time

JSON_LINES = "application/x-ndjson"

Vectors = Annotated[
    bool, QueryParameter(description="Give each entry's chunks with their vectors (base64 float32)")
]
SkipBadLines = Annotated[
    bool,
    QueryParameter(description="Import the good lines and list the bad ones, rather than refuse"),
]
Confirm = Annotated[
    str | None, QueryParameter(description="The namespace's name again, to confirm the erasure")
]


class NamespacesController(Controller):
    path = "/v1/namespaces"
    tags = ["namespaces"]

    @get(
        "/{namespace:str}/export",
        sync_to_thread=True,
        media_type=JSON_LINES,
        response_description="JSON Lines: a header, the entries, collections and files, "
        "interactions, feedback, and an end line (schemas/json/ExportLine.schema.json)",
    )
    def export(
        self, namespace: NamespaceName, caller: CallerDep, vectors: Vectors = False
    ) -> Stream:
        """Stream the namespace as JSON Lines; any key that may read it may export it."""
        lines = caller.services.namespaces.export(caller.principal, namespace, vectors=vectors)
        filename = f"{namespace}.strata.jsonl"
        return Stream(
            lines,
            media_type=JSON_LINES,
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )

    @post(
        "/{namespace:str}/import",
        status_code=200,
        request_max_body_size=None,
        responses=problems(413),
    )
    async def import_namespace(
        self,
        namespace: NamespaceName,
        request: AnyRequest,
        caller: CallerDep,
        skip_bad_lines: SkipBadLines = False,
    ) -> wire.ImportResponse:
        """Read an export file (the body, JSON Lines) into the namespace: every line is
        checked first, and nothing is written if one is bad unless ``skip_bad_lines``.
        Admin keys only."""
        cases = caller.services.namespaces
        await caller.write(cases.may_import, namespace)
        path = await _spooled(request, caller.services.settings.server.max_import_bytes)
        try:
            report = await caller.pools.write(
                lambda: cases.import_file(
                    caller.principal, namespace, path, skip_bad_lines=skip_bad_lines
                )
            )
        finally:
            path.unlink(missing_ok=True)
        return _imported(report)

    @delete("/{namespace:str}", status_code=200)
    async def erase(
        self, namespace: NamespaceName, caller: CallerDep, confirm: Confirm = None
    ) -> wire.ErasureResponse:
        """Remove every trace of the namespace from every store, and the bytes they took;
        leaves an audit record (who, when, how many). Admin keys only; ``confirm`` must
        repeat the namespace's name."""
        return erasure_out(await caller.write(caller.services.namespaces.erase, namespace, confirm))


async def _spooled(request: AnyRequest, limit: int) -> Path:
    """The body, kept in a temporary file (removed by the caller), at most ``limit`` bytes."""
    handle, name = tempfile.mkstemp(prefix="strata-import-", suffix=".jsonl")
    size = 0
    try:
        with os.fdopen(handle, "wb") as out:
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise PayloadTooLarge(
                        f"body: more than {limit} bytes (STRATA_MAX_IMPORT_BYTES)"
                    )
                out.write(chunk)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def _imported(report: ImportReport) -> wire.ImportResponse:
    return wire.ImportResponse(
        namespace=report.namespace,
        source=report.source,
        lines=report.lines,
        imported=report.imported,
        skipped=[wire.SkippedLine(n, reason) for n, reason in report.skipped],
        skipped_count=report.skipped_count,
    )


def erasure_out(erasure: Erasure) -> wire.ErasureResponse:
    counts = {name: 0 for name in wire.ErasureCounts.__struct_fields__}
    counts.update({k: v for k, v in erasure.counts.items() if k in counts})
    return wire.ErasureResponse(
        namespace=erasure.namespace,
        erased_at=format_time(erasure.at) or "",
        actor=erasure.actor,
        counts=wire.ErasureCounts(**counts),
    )
