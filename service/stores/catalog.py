"""The catalog of file collections and the files indexed from them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select, update

from service.domain.model import Collection, IndexedFile
from service.stores.database import Database, erase_namespace
from service.stores.tables import collections, files

K, F = collections.c, files.c


class SqlCatalog:
    def __init__(self, database: Database) -> None:
        self._db = database

    def add(self, c: Collection) -> None:
        with self._db.write() as conn:
            conn.execute(
                collections.insert().values(
                    id=c.id,
                    name=c.name,
                    namespace=c.namespace,
                    path=c.path,
                    mask=c.mask,
                    tier=c.tier,
                    created_at=c.created_at,
                    scanned_at=c.scanned_at,
                )
            )

    def get(self, namespace: str, name: str) -> Collection | None:
        rows = self._rows(select(collections).where(K.namespace == namespace, K.name == name))
        return Collection(**rows[0]._mapping) if rows else None

    def named(self, name: str) -> list[Collection]:
        query = select(collections).where(K.name == name).order_by(K.namespace)
        return [Collection(**row._mapping) for row in self._rows(query)]

    def all(self) -> list[Collection]:
        return [
            Collection(**row._mapping)
            for row in self._rows(select(collections).order_by(K.name, K.namespace))
        ]

    def rename(self, collection_id: str, new: str) -> None:
        self._run(update(collections).where(K.id == collection_id).values(name=new))

    def remove(self, collection_id: str) -> None:
        self._run(delete(collections).where(K.id == collection_id))

    def scanned(self, collection_id: str, at: float) -> None:
        self._run(update(collections).where(K.id == collection_id).values(scanned_at=at))

    def files(self, collection_id: str) -> dict[str, IndexedFile]:
        rows = self._rows(
            select(F.path, F.hash, F.chunks).where(F.collection == collection_id).order_by(F.path)
        )
        return {row.path: IndexedFile(*row) for row in rows}

    def file(self, collection_id: str, path: str) -> IndexedFile | None:
        rows = self._rows(
            select(F.path, F.hash, F.chunks).where(F.collection == collection_id, F.path == path)
        )
        return IndexedFile(*rows[0]) if rows else None

    def set_file(self, collection_id: str, indexed: IndexedFile, text: str) -> None:
        upsert = self._db.insert(files).values(
            collection=collection_id,
            path=indexed.path,
            hash=indexed.hash,
            chunks=indexed.chunks,
            text=text,
        )
        self._run(
            upsert.on_conflict_do_update(
                index_elements=[F.collection, F.path],
                set_={
                    "hash": upsert.excluded.hash,
                    "chunks": upsert.excluded.chunks,
                    "text": upsert.excluded.text,
                },
            )
        )

    def text(self, collection_id: str, path: str) -> str | None:
        """None too for a file indexed before texts were kept, until it changes."""
        rows = self._rows(select(F.text).where(F.collection == collection_id, F.path == path))
        return rows[0].text if rows else None

    def remove_file(self, collection_id: str, path: str) -> None:
        self._run(delete(files).where(F.collection == collection_id, F.path == path))

    def file_page(
        self, collection_id: str, after: str, limit: int
    ) -> list[tuple[IndexedFile, str | None]]:
        rows = self._rows(
            select(F.path, F.hash, F.chunks, F.text)
            .where(F.collection == collection_id, F.path > after)
            .order_by(F.path)
            .limit(limit)
        )
        return [(IndexedFile(row.path, row.hash, row.chunks), row.text) for row in rows]

    def restore(self, c: Collection) -> None:
        values = {
            "id": c.id,
            "name": c.name,
            "namespace": c.namespace,
            "path": c.path,
            "mask": c.mask,
            "tier": c.tier,
            "created_at": c.created_at,
            "scanned_at": c.scanned_at,
        }
        upsert = self._db.insert(collections).values(values)
        self._run(
            upsert.on_conflict_do_update(
                index_elements=[K.id],
                set_={name: upsert.excluded[name] for name in values if name != "id"},
            )
        )

    def erase(self, namespace: str) -> tuple[int, int]:
        return erase_namespace(self._db, namespace, collections, files, F.collection)

    def close(self) -> None:
        """Nothing of its own to release: the database is closed by whoever opened it."""

    def _run(self, statement: Any) -> None:
        with self._db.write() as conn:
            conn.execute(statement)

    def _rows(self, query: Any) -> list[Any]:
        with self._db.read() as conn:
            return list(conn.execute(query))
