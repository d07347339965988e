"""The catalog of file collections on Postgres, shared by every replica."""

from __future__ import annotations

from typing import Any

from psycopg.rows import DictRow

from service.domain.collections import Collection, IndexedFile
from service.stores.postgres.pool import Pool

_COLLECTION = "id, name, namespace, path, mask, tier, created_at, scanned_at"


class PostgresCatalog:
    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    def add(self, c: Collection) -> None:
        self._run(
            f"INSERT INTO collections ({_COLLECTION}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (c.id, c.name, c.namespace, c.path, c.mask, c.tier, c.created_at, c.scanned_at),
        )

    def get(self, name: str) -> Collection | None:
        rows = self._rows(f"SELECT {_COLLECTION} FROM collections WHERE name = %s", (name,))
        return _collection(rows[0]) if rows else None

    def all(self) -> list[Collection]:
        return [
            _collection(row)
            for row in self._rows(f"SELECT {_COLLECTION} FROM collections ORDER BY name")
        ]

    def rename(self, old: str, new: str) -> None:
        self._run("UPDATE collections SET name = %s WHERE name = %s", (new, old))

    def remove(self, collection_id: str) -> None:
        self._run("DELETE FROM collections WHERE id = %s", (collection_id,))

    def scanned(self, collection_id: str, at: float) -> None:
        self._run("UPDATE collections SET scanned_at = %s WHERE id = %s", (at, collection_id))

    def files(self, collection_id: str) -> dict[str, IndexedFile]:
        rows = self._rows(
            "SELECT path, hash, chunks FROM files WHERE collection = %s ORDER BY path",
            (collection_id,),
        )
        return {row["path"]: IndexedFile(row["path"], row["hash"], row["chunks"]) for row in rows}

    def file(self, collection_id: str, path: str) -> IndexedFile | None:
        rows = self._rows(
            "SELECT path, hash, chunks FROM files WHERE collection = %s AND path = %s",
            (collection_id, path),
        )
        return IndexedFile(rows[0]["path"], rows[0]["hash"], rows[0]["chunks"]) if rows else None

    def set_file(self, collection_id: str, indexed: IndexedFile, text: str) -> None:
        self._run(
            "INSERT INTO files (collection, path, hash, chunks, text) VALUES (%s, %s, %s, %s, %s) "
            "ON CONFLICT (collection, path) DO UPDATE SET hash = EXCLUDED.hash, "
            "chunks = EXCLUDED.chunks, text = EXCLUDED.text",
            (collection_id, indexed.path, indexed.hash, indexed.chunks, text),
        )

    def text(self, collection_id: str, path: str) -> str | None:
        rows = self._rows(
            "SELECT text FROM files WHERE collection = %s AND path = %s", (collection_id, path)
        )
        return rows[0]["text"] if rows else None

    def remove_file(self, collection_id: str, path: str) -> None:
        self._run("DELETE FROM files WHERE collection = %s AND path = %s", (collection_id, path))

    def close(self) -> None:
        """Nothing of its own to release: the pool is closed by whoever opened it."""

    def _run(self, sql: str, args: tuple[Any, ...]) -> None:
        with self._pool.connection() as conn:
            conn.execute(sql, args)

    def _rows(self, sql: str, args: tuple[Any, ...] | None = None) -> list[DictRow]:
        with self._pool.connection() as conn:
            return conn.execute(sql, args).fetchall()


def _collection(row: DictRow) -> Collection:
    return Collection(
        id=row["id"],
        name=row["name"],
        namespace=row["namespace"],
        path=row["path"],
        mask=row["mask"],
        tier=row["tier"],
        created_at=row["created_at"],
        scanned_at=row["scanned_at"],
    )
