"""An in-memory catalog of file collections."""

from __future__ import annotations

from dataclasses import replace

from service.domain.model import Collection, IndexedFile


class FakeCatalog:
    """Collections by id, and the files indexed from each by path."""

    def __init__(self) -> None:
        self.collections: dict[str, Collection] = {}
        self.indexed: dict[str, dict[str, IndexedFile]] = {}
        self.texts: dict[tuple[str, str], str] = {}

    def add(self, c: Collection) -> None:
        if c.id in self.collections or self.get(c.namespace, c.name) is not None:
            raise ValueError(f"collection {c.name!r} ({c.id}) exists")
        self.collections[c.id] = c
        self.indexed[c.id] = {}

    def get(self, namespace: str, name: str) -> Collection | None:
        return next((c for c in self.named(name) if c.namespace == namespace), None)

    def named(self, name: str) -> list[Collection]:
        return sorted(
            (c for c in self.collections.values() if c.name == name), key=lambda c: c.namespace
        )

    def all(self) -> list[Collection]:
        return sorted(self.collections.values(), key=lambda c: (c.name, c.namespace))

    def rename(self, collection_id: str, new: str) -> None:
        found = self.collections.get(collection_id)
        if found is None:
            return
        if new != found.name and self.get(found.namespace, new) is not None:
            raise ValueError(f"a collection named {new!r} exists")
        self.collections[found.id] = replace(found, name=new)

    def remove(self, collection_id: str) -> None:
        self.collections.pop(collection_id, None)
        self.indexed.pop(collection_id, None)
        self.texts = {k: v for k, v in self.texts.items() if k[0] != collection_id}

    def scanned(self, collection_id: str, at: float) -> None:
        found = self.collections.get(collection_id)
        if found is not None:
            self.collections[collection_id] = replace(found, scanned_at=at)

    def files(self, collection_id: str) -> dict[str, IndexedFile]:
        return dict(self.indexed.get(collection_id, {}))

    def file(self, collection_id: str, path: str) -> IndexedFile | None:
        return self.indexed.get(collection_id, {}).get(path)

    def set_file(self, collection_id: str, indexed: IndexedFile, text: str) -> None:
        if collection_id not in self.collections:
            raise ValueError(f"no collection {collection_id!r}")
        self.indexed[collection_id][indexed.path] = indexed
        self.texts[collection_id, indexed.path] = text

    def text(self, collection_id: str, path: str) -> str | None:
        if self.file(collection_id, path) is None:
            return None
        return self.texts.get((collection_id, path))

    def remove_file(self, collection_id: str, path: str) -> None:
        self.indexed.get(collection_id, {}).pop(path, None)
        self.texts.pop((collection_id, path), None)

    def file_page(
        self, collection_id: str, after: str, limit: int
    ) -> list[tuple[IndexedFile, str | None]]:
        files = self.indexed.get(collection_id, {})
        paths = sorted(p for p in files if p > after)[:limit]
        return [(files[p], self.texts.get((collection_id, p))) for p in paths]

    def restore(self, c: Collection) -> None:
        named = self.get(c.namespace, c.name)
        if named is not None and named.id != c.id:
            raise ValueError(f"a collection named {c.name!r} exists")
        self.collections[c.id] = c
        self.indexed.setdefault(c.id, {})

    def erase(self, namespace: str) -> tuple[int, int]:
        mine = [c.id for c in self.collections.values() if c.namespace == namespace]
        files = sum(len(self.indexed.get(i, {})) for i in mine)
        for collection_id in mine:
            self.remove(collection_id)
        return len(mine), files
