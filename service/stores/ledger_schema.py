"""The ledger's columns, how an entry maps to them, and the columns added since the first
release; shared by the SQLite and the Postgres ledger (the tables themselves are in
``service/stores/migrations``)."""

from __future__ import annotations

import json
import sqlite3
from array import array
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from service.domain.models import Entry, StoredEntry
from service.domain.similarity import Matrix

LIVE = "state IN ('pending', 'synced')"
"""Entries every read sees: not being deleted, not set aside."""

# The columns an entry is written to and read from.
# fmt: off
FIELDS = (
    "key", "id", "namespace", "tier", "text", "speaker", "role", "chain_type", "tags",
    "timestamp", "expires_at", "metadata", "archived", "kind", "type", "confidence",
    "variants", "thread", "context", "tokens",
)
# fmt: on
COLUMNS = ", ".join(FIELDS)

ADDED_COLUMNS = {
    "kind": "TEXT NOT NULL DEFAULT 'memory'",
    "type": "TEXT",
    "confidence": "REAL",
    "variants": "TEXT NOT NULL DEFAULT '[]'",
    "thread": "TEXT",
    "context": "TEXT",
}
"""Columns added after the first release: a ledger written before gets them at open."""


def add_missing_columns(db: sqlite3.Connection) -> None:
    present = {row[1] for row in db.execute("PRAGMA table_info(entries)")}
    for name, declaration in ADDED_COLUMNS.items():
        if name not in present:
            db.execute(f"ALTER TABLE entries ADD COLUMN {name} {declaration}")
    db.execute(
        "CREATE INDEX IF NOT EXISTS entries_thread ON entries(namespace, thread) "
        "WHERE thread IS NOT NULL"
    )


def entry_values(s: StoredEntry) -> tuple[Any, ...]:
    """An entry's column values, in the order of ``FIELDS`` (``archived`` a bool)."""
    e = s.entry
    return (
        e.key,
        e.id,
        e.namespace,
        e.tier,
        e.text,
        e.speaker,
        e.role,
        e.chain_type,
        json.dumps(list(e.tags)),
        e.timestamp,
        e.expires_at,
        json.dumps(dict(e.metadata)),
        e.archived,
        e.kind,
        e.type,
        e.confidence,
        json.dumps(list(e.variants)),
        e.thread,
        e.context,
        s.tokens,
    )


def row_entry(row: Mapping[str, Any] | sqlite3.Row) -> Entry:
    """The entry of a row read with ``COLUMNS``."""
    return Entry(
        id=row["id"],
        namespace=row["namespace"],
        tier=row["tier"],
        text=row["text"],
        speaker=row["speaker"],
        role=row["role"],
        chain_type=row["chain_type"],
        tags=tuple(json.loads(row["tags"])),
        timestamp=row["timestamp"],
        expires_at=row["expires_at"],
        metadata=json.loads(row["metadata"]),
        archived=bool(row["archived"]),
        kind=row["kind"],
        type=row["type"],
        confidence=row["confidence"],
        variants=tuple(json.loads(row["variants"])),
        thread=row["thread"],
        context=row["context"],
    )


def pack(vector: tuple[float, ...] | None) -> bytes | None:
    return None if vector is None else array("f", vector).tobytes()


def unpack(blob: bytes | None) -> tuple[float, ...] | None:
    if blob is None:
        return None
    values = array("f")
    values.frombytes(blob)
    return tuple(values)


def matrix(blobs: Iterable[bytes]) -> Matrix:
    """Vectors kept as ``pack`` wrote them, as the rows of one float32 matrix, each blob
    copied once into it as it comes. An entry's chunks are embedded together, so they
    share one size; any other is left out."""
    data, size, rows = bytearray(), -1, 0
    for blob in blobs:
        size = len(blob) if size < 0 else size
        if len(blob) == size:
            data += blob
            rows += 1
    return np.frombuffer(data, dtype=np.float32).reshape(rows, size // 4)
