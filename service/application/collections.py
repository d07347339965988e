"""Collections of markdown files: registering, scanning, renaming and removing them."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

from schemas import wire
from service.application.auth import Principal
from service.domain.collections.catalog import Collections, ScanReport
from service.domain.model import Collection, Listing
from service.domain.ports import Catalog, Files
from service.errors import Conflict, InvalidInput, NotFound


@dataclass(frozen=True)
class CollectionView:
    collection: Collection
    files: int
    scanning: tuple[int, int] | None
    """Files done and files in all while a scan runs."""


@dataclass(frozen=True)
class Scanned:
    view: CollectionView
    report: ScanReport


@dataclass(eq=False)
class CollectionUseCases:
    collections: Collections
    catalog: Catalog
    files: Files
    _: KW_ONLY
    clock: Callable[[], float]
    new_id: Callable[[], str]

    def add(self, principal: Principal, request: wire.CollectionRequest) -> Scanned:
        """Register a folder (admin: it reads the server's disk) and index it. The folder
        must be inside a collection root and hold at most the bound of files (422 naming
        ``path`` otherwise); a folder outside the roots is refused alike whether it exists
        or not, and links out of one are judged by where they lead."""
        principal.require_admin()
        namespace = principal.namespace(request.namespace)
        given = os.path.expanduser(request.path)
        if not os.path.isabs(given):
            raise InvalidInput.one("path", "must be an absolute path on the server")
        root = self.files.folder(request.path)
        if (why := self.collections.refusal(root or os.path.normpath(given))) is not None:
            raise InvalidInput.one("path", f"{request.path} {why}")
        if root is None:
            raise InvalidInput.one("path", f"{request.path} is not a directory")
        self._name_free(namespace, request.name)
        listing = self.collections.listing(root, request.mask)
        if not listing.complete:
            too_many = self.collections.too_many(request.mask)
            narrower = "name a smaller folder or a narrower mask"
            raise InvalidInput.one("path", f"{request.path} {too_many}; {narrower}")
        collection = Collection(
            self.new_id(),
            request.name,
            namespace,
            root,
            request.mask,
            request.tier,
            self.clock(),
        )
        self.catalog.add(collection)
        return self._scan(collection, principal, listing)

    def list(self, principal: Principal) -> list[CollectionView]:
        return [self._view(c) for c in self.catalog.all() if principal.may_use(c.namespace)]

    def show(self, principal: Principal, name: str, namespace: str | None = None) -> CollectionView:
        return self._view(self.find(principal, name, namespace))

    def indexed_files(
        self, principal: Principal, name: str, namespace: str | None = None
    ) -> tuple[str, ...]:
        """The paths, relative to its root, of the files a collection's last scan indexed."""
        return tuple(sorted(self.catalog.files(self.find(principal, name, namespace).id)))

    def scan(self, principal: Principal, name: str, namespace: str | None = None) -> Scanned:
        """Re-scan (admin: it reads the server's disk and embeds what changed): changed
        files are re-embedded, removed ones leave the index."""
        principal.require_admin()
        return self._scan(self.find(principal, name, namespace), principal)

    def rename(
        self, principal: Principal, name: str, new_name: str, namespace: str | None = None
    ) -> CollectionView:
        principal.require_admin()
        collection = self.find(principal, name, namespace)
        self._name_free(collection.namespace, new_name)
        return self._view(self.collections.rename(collection, new_name, principal.name))

    def remove(
        self, principal: Principal, name: str, namespace: str | None = None
    ) -> CollectionView:
        """Forget a collection and its chunks; the files themselves are left alone."""
        principal.require_admin()
        collection = self.find(principal, name, namespace)
        shown = self._view(collection)
        self.collections.remove(collection, principal.name)
        return shown

    def find(self, principal: Principal, name: str, namespace: str | None = None) -> Collection:
        """The collection of that name in ``namespace``, else in the one namespace of the
        caller's that holds one. Names are unique per namespace, and only the caller's are
        looked at: another namespace's collection is as unknown as none. A name held in
        several of the caller's namespaces needs ``namespace`` (409 naming them)."""
        if namespace is not None:
            principal.check(namespace)
            found = self.catalog.get(namespace, name)
            if found is None:
                raise NotFound(f"no collection {name!r} in namespace {namespace!r}")
            return found
        mine = [c for c in self.catalog.named(name) if principal.may_use(c.namespace)]
        if not mine:
            raise NotFound(f"no collection {name!r}")
        if len(mine) > 1:
            held = ", ".join(repr(c.namespace) for c in mine)
            raise Conflict(
                f"collections named {name!r} are in namespaces {held}: name the namespace"
            )
        return mine[0]

    def _name_free(self, namespace: str, name: str) -> None:
        if self.catalog.get(namespace, name) is not None:
            raise Conflict(f"a collection named {name!r} exists in namespace {namespace!r}")

    def _scan(
        self, collection: Collection, principal: Principal, listing: Listing | None = None
    ) -> Scanned:
        report = self.collections.scan(collection, principal.name, listing)
        now = self.catalog.get(collection.namespace, collection.name)
        return Scanned(self._view(now or collection), report)

    def _view(self, collection: Collection) -> CollectionView:
        return CollectionView(
            collection,
            len(self.catalog.files(collection.id)),
            self.collections.progress(collection),
        )
