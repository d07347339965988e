"""A namespace's export, import and erasure.

Export needs a key that may read the namespace (an agent key scoped to it will do): it
hands over what that key can read already. Import and erasure need an admin key: an
import writes history and times as the file states them and registers collections, and
an erasure removes a namespace for good.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import KW_ONLY, dataclass
from itertools import chain
from pathlib import Path

import msgspec

from schemas import wire
from service.application import export_lines as lines
from service.application.auth import Principal
from service.application.importing import Importer, ImportReport
from service.domain.entries import Erasure, key_id
from service.domain.errors import EngineUnavailable
from service.domain.memory import Transfer
from service.domain.namespaces.erasure import erase_namespace
from service.domain.ports import (
    Catalog,
    Compaction,
    Embedder,
    InteractionLog,
    Inventory,
    NamespaceEntries,
    References,
)
from service.errors import InvalidInput
from service.settings import Settings

log = logging.getLogger("strata")

PAGE = 500
"""Rows read from a store at a time while exporting: the most an export holds at once."""
STRATA_VERSION = "0.1.0"

_encoder = msgspec.json.Encoder()


@dataclass(eq=False)
class NamespaceUseCases:
    transfer: Transfer
    namespaces: NamespaceEntries
    references: References
    inventory: Inventory
    catalog: Catalog
    interactions: InteractionLog
    compaction: Compaction
    settings: Settings
    _: KW_ONLY
    embedder: Embedder | None
    folder_refusal: Callable[[str], str | None]
    """Why no collection may have its folder at a path (``Collections.refusal_at``)."""
    clock: Callable[[], float] = time.time

    def export(self, principal: Principal, namespace: str, *, vectors: bool) -> Iterator[bytes]:
        """The namespace as JSON Lines, a page of rows at a time. The caller is checked, the
        header made and the first page read before the first byte is sent: an engine away
        by then is a 503. One that goes away later ends the stream without its end line,
        which tells the reader (and an import) that the file is cut."""
        principal.check(namespace)
        header = self._header(namespace, vectors)
        pages = self._pages(namespace, vectors)
        first = next(pages, None)
        return self._stream(header, chain([] if first is None else [first], pages))

    def _header(self, namespace: str, vectors: bool) -> wire.Header:
        entries = sum(n.entries for n in self.inventory.stats() if n.namespace == namespace)
        mine = [c for c in self.catalog.all() if c.namespace == namespace]
        asked, given = self.interactions.counted(namespace)
        embedder = self.embedder
        chunking = self.settings.chunking
        return wire.Header(
            format=wire.FORMAT,
            version=wire.FORMAT_VERSION,
            strata=STRATA_VERSION,
            namespace=namespace,
            exported_at=self.clock(),
            vectors=vectors,
            model=embedder.name if embedder is not None else None,
            dimension=embedder.dimension if embedder is not None else None,
            settings=wire.ExportSettings(
                chunk_words=chunking.words,
                chunk_overlap=chunking.overlap,
                max_chunks=chunking.max_chunks,
            ),
            counts=wire.ExportCounts(
                entries=entries,
                collections=len(mine),
                files=sum(len(self.catalog.files(c.id)) for c in mine),
                interactions=asked,
                feedback=given,
                references=self.references.count_references(namespace),
            ),
        )

    def _stream(
        self, header: wire.Header, pages: Iterator[list[msgspec.Struct]]
    ) -> Iterator[bytes]:
        written = 1
        yield _line(header)
        try:
            for page in pages:
                written += len(page)
                yield b"".join(_line(item) for item in page)
        except EngineUnavailable as exc:
            log.warning("export of %s cut after %d lines: %s", header.namespace, written, exc)
            return
        yield _line(wire.End(lines=written))

    def _pages(self, namespace: str, vectors: bool) -> Iterator[list[msgspec.Struct]]:
        after = ""
        while page := self.namespaces.entry_page(namespace, after, PAGE):
            after = page[-1].stored.entry.id
            yield [lines.entry_line(item, vectors=vectors) for item in page]
        after = ""
        while removed := self.namespaces.removed_page(namespace, after, PAGE):
            after = key_id(removed[-1].key)
            yield [lines.deleted_line(item) for item in removed]
        for c in (c for c in self.catalog.all() if c.namespace == namespace):
            yield [lines.collection_line(c)]
            path = ""
            while files := self.catalog.file_page(c.id, path, PAGE):
                path = files[-1][0].path
                yield [lines.file_line(c.id, f, text) for f, text in files]
        n = 0
        while asked := self.interactions.interaction_page(namespace, n, PAGE):
            n = asked[-1][0]
            yield [lines.interaction_line(i) for _, i in asked]
        n = 0
        while given := self.interactions.feedback_page(namespace, n, PAGE):
            n = given[-1][0]
            yield [lines.feedback_line(f) for _, f in given]
        n = 0
        while recorded := self.references.references(namespace, n, PAGE):
            n += len(recorded)
            yield [lines.reference_line(r) for r in recorded]

    def may_import(self, principal: Principal, namespace: str) -> None:
        """Refuse, before a byte of the file is read, a caller who may not import."""
        principal.require_admin()
        principal.check(namespace)

    def import_file(
        self, principal: Principal, namespace: str, path: Path, *, skip_bad_lines: bool
    ) -> ImportReport:
        """Read an export file (kept at ``path`` by the front end) into ``namespace``."""
        self.may_import(principal, namespace)
        importer = Importer(
            self.transfer,
            self.namespaces,
            self.catalog,
            self.interactions,
            self.references,
            embedder=self.embedder,
            chunking=self.settings.chunking,
            namespace=namespace,
            actor=principal.name,
            folder_refusal=self.folder_refusal,
        )
        return importer.run(path, skip_bad_lines=skip_bad_lines)

    def erase(self, principal: Principal, namespace: str, confirm: str | None) -> Erasure:
        """Remove every trace of the namespace; ``confirm`` must repeat its name."""
        principal.require_admin()
        principal.check(namespace)
        if confirm != namespace:
            raise InvalidInput.one(
                "confirm", f"must repeat the namespace's name ({namespace!r}) to erase it"
            )
        return erase_namespace(
            namespace,
            principal.name,
            self.transfer,
            self.catalog,
            self.interactions,
            self.compaction,
        )

    def erasures(self, principal: Principal) -> list[Erasure]:
        """The erasures of the namespaces the caller may use: a key scoped to some
        namespaces learns nothing of the others."""
        principal.require_admin()
        return self.namespaces.erasures(principal.namespaces)


def _line(item: msgspec.Struct) -> bytes:
    return _encoder.encode(item) + b"\n"
