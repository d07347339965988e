"""The catalog of file collections and the files indexed from them (SQLite, beside the ledger)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from service.domain.collections import Collection, IndexedFile
from service.stores.sqlite import SqliteFile


class SqliteCatalog(SqliteFile):
    def __init__(self, path: Path) -> None:
        super().__init__(path, "sqlite/catalog")

    def add(self, c: Collection) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO collections (id, name, namespace, path, mask, tier, created_at, "
                "scanned_at) VALUES (?,?,?,?,?,?,?,?)",
                (c.id, c.name, c.namespace, c.path, c.mask, c.tier, c.created_at, c.scanned_at),
            )

    def get(self, name: str) -> Collection | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM collections WHERE name = ?", (name,)).fetchone()
        return None if row is None else _collection(row)

    def all(self) -> list[Collection]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM collections ORDER BY name").fetchall()
        return [_collection(row) for row in rows]

    def rename(self, old: str, new: str) -> None:
        with self._lock:
            self._db.execute("UPDATE collections SET name = ? WHERE name = ?", (new, old))

    def remove(self, collection_id: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM collections WHERE id = ?", (collection_id,))

    def scanned(self, collection_id: str, at: float) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE collections SET scanned_at = ? WHERE id = ?", (at, collection_id)
            )

    def files(self, collection_id: str) -> dict[str, IndexedFile]:
        with self._lock:
            rows = self._db.execute(
                "SELECT path, hash, chunks FROM files WHERE collection = ?", (collection_id,)
            ).fetchall()
        return {row["path"]: IndexedFile(row["path"], row["hash"], row["chunks"]) for row in rows}

    def file(self, collection_id: str, path: str) -> IndexedFile | None:
        with self._lock:
            row = self._db.execute(
                "SELECT path, hash, chunks FROM files WHERE collection = ? AND path = ?",
                (collection_id, path),
            ).fetchone()
        return None if row is None else IndexedFile(row["path"], row["hash"], row["chunks"])

    def set_file(self, collection_id: str, indexed: IndexedFile, text: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO files (collection, path, hash, chunks, text) "
                "VALUES (?,?,?,?,?)",
                (collection_id, indexed.path, indexed.hash, indexed.chunks, text),
            )

    def text(self, collection_id: str, path: str) -> str | None:
        """None too for a file indexed before texts were kept, until it changes."""
        with self._lock:
            row = self._db.execute(
                "SELECT text FROM files WHERE collection = ? AND path = ?", (collection_id, path)
            ).fetchone()
        return None if row is None else row["text"]

    def remove_file(self, collection_id: str, path: str) -> None:
        with self._lock:
            self._db.execute(
                "DELETE FROM files WHERE collection = ? AND path = ?", (collection_id, path)
            )


def _collection(row: sqlite3.Row) -> Collection:
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
