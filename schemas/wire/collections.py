"""Collections of files on the server and the documents in them: ``/v1/collections`` and
``/v1/documents``."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

from schemas.vocabulary import GLOB_CHARS, NAMESPACE_PATTERN, Tier
from schemas.wire.fields import SPACE, Namespace

CollectionName = Annotated[str, Meta(pattern=NAMESPACE_PATTERN)]


class CollectionRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    name: CollectionName
    path: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=4096,
            description="A directory on the server, absolute or under ~",
            extra_json_schema={"pattern": "^(/|~/|~$)"},
        ),
    ]
    mask: Annotated[str, Meta(min_length=1, max_length=200)] = "**/*.md"
    namespace: Namespace | None = None
    tier: Tier = "A"


class RenameRequest(Struct, forbid_unknown_fields=True):
    name: CollectionName


class CollectionOut(Struct, kw_only=True):
    name: str
    namespace: str
    path: str
    mask: str
    tier: Tier
    files: int
    created_at: str
    scanned_at: str | None
    scanning: ScanProgress | None = None
    """While a scan runs: files done so far and files in all."""


class ScanProgress(Struct):
    done: int
    total: int


class CollectionsResponse(Struct):
    collections: list[CollectionOut]


class Skipped(Struct):
    path: str
    reason: str


class ScanOut(Struct, kw_only=True):
    collection: CollectionOut
    added: int
    changed: int
    removed: int
    unchanged: int
    chunks: int
    skipped: list[Skipped]
    """Files (and folders) the scan did not index, as ``<collection>/<relative path>``,
    each with the reason; each keeps what an earlier scan indexed of it."""


class DocumentOut(Struct, kw_only=True):
    path: str
    title: str
    first_line: int
    last_line: int
    total_lines: int
    text: str
    """The requested lines, each prefixed with its number."""


_S = f"[{SPACE}]*"
_DOCUMENT = rf"(strata://)?[A-Za-z0-9_.-]{{1,64}}/{_S}[^,{SPACE}][^,]*"
_GLOB = rf"(?=[^,]*[*?\[])(strata://)?[^,]{{1,{GLOB_CHARS}}}"
_PATHS = rf"(?![^,]*[*?\[][^,]*$){_S}({_DOCUMENT})?{_S}(,{_S}({_DOCUMENT})?{_S})*"
DOCUMENTS = rf"^({_GLOB}|{_PATHS})$"
"""A glob (no comma, at most ``GLOB_CHARS`` characters past its ``strata://``), or a list
of ``<collection>/<relative path>``, blanks allowed."""


class DocumentsRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    pattern: Annotated[
        str, Meta(min_length=1, max_length=10_000, extra_json_schema={"pattern": DOCUMENTS})
    ]
    """A glob over document paths (``notes/**/*.md``) or a comma-separated list of paths."""
    max_bytes: Annotated[int, Meta(ge=1, le=10_000_000)] = 65536


class DocumentsResponse(Struct):
    documents: list[DocumentOut]
    skipped: list[Skipped]
