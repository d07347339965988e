"""How an entry maps to the ledger's rows, and chunk vectors to bytes and back."""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable, Mapping
from operator import itemgetter
from typing import Any

import msgspec
import numpy as np

from service.domain.entries import Entry, StoredEntry
from service.domain.model import Matrix
from service.lib.fields import fields_of
from service.stores.tables import entries

LEDGER_OWN = ("state", "written", "superseded_by", "fingerprint")
FIELDS = (*(c.name for c in entries.c if c.name not in LEDGER_OWN), "superseded_by")
"""The columns an entry is read from (``superseded_by`` is kept by the ledger)."""
_decode = msgspec.json.Decoder().decode
"""Reads the JSON columns (tags, metadata, variants): a search reads them for every
candidate it loads."""
STORED = tuple(c.name for c in entries.c if c.name not in LEDGER_OWN or c.name == "fingerprint")
"""The columns an entry is written to, in the table's order (``state`` and ``written`` are
the ledger's own)."""
IN_ORDER = itemgetter(*STORED)
AS_THEY_ARE = (
    "id",
    "namespace",
    "tier",
    "text",
    "speaker",
    "role",
    "chain_type",
    "timestamp",
    "expires_at",
    "kind",
    "type",
    "confidence",
    "thread",
    "context",
)
"""The columns that hold the entry's field of the same name unchanged."""


def entry_values(s: StoredEntry) -> tuple[Any, ...]:
    """An entry's column values, in the order of ``STORED`` (``archived`` a bool)."""
    e = s.entry
    values = fields_of(e, "key", *AS_THEY_ARE, "archived", "fingerprint")
    values["tags"] = json.dumps(list(e.tags))
    values["metadata"] = json.dumps(dict(e.metadata))
    values["variants"] = json.dumps(list(e.variants))
    values["tokens"] = s.tokens
    return IN_ORDER(values)  # type: ignore[no-any-return]


def row_entry(row: Mapping[Any, Any]) -> Entry:
    """The entry of a row holding the ``FIELDS``."""
    return Entry(
        **{name: row[name] for name in AS_THEY_ARE},
        tags=tuple(_decode(row["tags"])),
        metadata=_decode(row["metadata"]),
        archived=bool(row["archived"]),
        variants=tuple(_decode(row["variants"])),
        superseded_by=row["superseded_by"],
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
