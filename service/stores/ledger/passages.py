"""What a search reads of the entries it found (``Passages``)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from service.domain.entries import Entry
from service.domain.model import Matrix
from service.stores.entry_rows import matrix, row_entry
from service.stores.ledger.core import LedgerCore


class SqlPassages(LedgerCore):
    """What a search reads (``Passages``)."""

    def passages(self, keys: Sequence[str]) -> dict[str, tuple[Entry, tuple[str, ...]]]:
        """Live entries with their chunk texts, in order; no vector is read."""
        with self._db.read() as conn:
            rows = list(conn.execute(self._sql.passages, self._keys(keys))) if keys else []
        gathered = self._db.gathered
        return {row.key: (row_entry(row._mapping), tuple(gathered(row.texts))) for row in rows}

    def vectors(self, keys: Sequence[str]) -> dict[str, Matrix]:
        """The chunk vectors of the entries that have them, without the rest of the entry:
        each entry's blobs joined into one float32 matrix, no float made a Python object."""
        found: dict[str, Matrix] = {}
        if not keys:
            return found
        with self._db.read() as conn:
            rows = conn.execute(self._sql.vectors_of, self._keys(keys))
            for key, group in groupby(rows, key=lambda row: row[0]):
                found[key] = matrix(row[1] for row in group)
        return found
