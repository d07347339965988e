"""File collections, the files indexed from each, and the server's own files they are read
from."""

from __future__ import annotations

from typing import Protocol

from service.domain.model import Collection, IndexedFile, Listing


class NamespaceCatalog(Protocol):
    """A namespace's collections and files, for its export, import and erasure."""

    def file_page(
        self, collection_id: str, after: str, limit: int
    ) -> list[tuple[IndexedFile, str | None]]:
        """The files of a collection whose path comes after ``after`` (byte order), at most
        ``limit``, by path, each with the text it was indexed from."""
        ...

    def restore(self, c: Collection) -> None:
        """Add the collection, or replace the one of the same id."""
        ...

    def erase(self, namespace: str) -> tuple[int, int]:
        """Remove the namespace's collections and their files; returns how many of each."""
        ...


class Catalog(NamespaceCatalog, Protocol):
    """Registered file collections and the files indexed from each."""

    def add(self, c: Collection) -> None: ...

    def get(self, namespace: str, name: str) -> Collection | None:
        """The collection of that name in ``namespace``: names are unique per namespace."""
        ...

    def named(self, name: str) -> list[Collection]:
        """The collections of that name, one per namespace holding one, by namespace."""
        ...

    def all(self) -> list[Collection]: ...

    def rename(self, collection_id: str, new: str) -> None: ...

    def remove(self, collection_id: str) -> None: ...

    def scanned(self, collection_id: str, at: float) -> None: ...

    def files(self, collection_id: str) -> dict[str, IndexedFile]: ...

    def file(self, collection_id: str, path: str) -> IndexedFile | None:
        """The file indexed at ``path`` (as a scan listed it) in the collection, if any."""
        ...

    def set_file(self, collection_id: str, indexed: IndexedFile, text: str) -> None:
        """Record a file as indexed, with the text it was indexed from."""
        ...

    def text(self, collection_id: str, path: str) -> str | None:
        """The text the file at ``path`` was indexed from; None when it is not indexed."""
        ...

    def remove_file(self, collection_id: str, path: str) -> None: ...


class Files(Protocol):
    """The server's own files, read only under a collection's root, never outside it."""

    def folder(self, path: str) -> str | None:
        """The absolute real path of ``path`` when it is an existing folder, else None."""
        ...

    def list(self, root: str, mask: str, *, limit: int | None = None) -> Listing:
        """The regular files under ``root`` matching the glob ``mask`` (as
        ``service.domain.collections.globs`` reads it), as relative POSIX paths, sorted; those
        whose real location is outside ``root``, and what cannot be listed, are ``skipped`` with the
        reason. With ``limit``, the listing stops once more than ``limit`` paths (listed or
        skipped) match, and is not ``complete``; which paths it then holds is undefined."""
        ...

    def size(self, root: str, relative: str) -> int | None:
        """Bytes of the regular file ``relative`` under ``root``; None when there is none.
        Raises ``Forbidden`` (service.errors) if ``relative`` would leave the root, and
        ``OSError`` when it cannot be read."""
        ...

    def read(self, root: str, relative: str, *, max_bytes: int | None = None) -> bytes | None:
        """The bytes of the regular file ``relative`` under ``root``, at most
        ``max_bytes + 1`` of them when ``max_bytes`` is given (so a longer file reads
        longer than the bound); None when there is no regular file there (gone, a folder,
        a FIFO). Raises ``Forbidden`` if ``relative`` would leave the root, and ``OSError``
        when it cannot be read (permission denied, a link loop)."""
        ...
