"""What the SQLite ledger adds to the ledger's contract (tests/contracts/test_ledger.py):
its file on disk, and the memory its reads of a long entry take."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np

from service.domain.entries import Chunk, Entry, StoredEntry
from service.stores.durable import open_sqlite
from tests.fakes import T0, make_entry
from tests.integration.test_migrations import ENTRIES_BEFORE_VERSIONS, written_before


def test_entries_survive_reopening(tmp_path: Path) -> None:
    stores = open_sqlite(tmp_path)
    item = StoredEntry(make_entry("1", "kept", tags=("x",), metadata={"n": 1}), (), 3)
    stores.ledger.put([item], actor="key:1", at=T0)
    stores.close()
    again = open_sqlite(tmp_path)
    assert again.ledger.get(["ns:1"]) == {"ns:1": item}
    assert again.ledger.count() == {"A": 1}
    assert [(h.action, h.actor) for h in again.ledger.history("ns:1")] == [("created", "key:1")]
    again.close()


def test_a_ledger_from_before_kinds_and_types_opens_with_its_entries(tmp_path: Path) -> None:
    written_before(
        tmp_path / "ledger.sqlite3",
        ENTRIES_BEFORE_VERSIONS
        + "INSERT INTO entries VALUES ('ns:old', 'old', 'ns', 'A', 'kept', NULL, NULL, NULL,"
        " '[]', 1.0, NULL, '{}', 0, 3, 'synced');",
    )
    ledger = open_sqlite(tmp_path).ledger
    old = ledger.get(["ns:old"])["ns:old"]
    assert (old.entry.text, old.entry.kind, old.entry.type, old.entry.variants) == (
        "kept",
        "memory",
        None,
        (),
    )
    pattern = Entry(
        id="p",
        namespace="ns",
        tier="A",
        text="t",
        timestamp=1.0,
        kind="pattern",
        type="framework",
        confidence=0.7,
        variants=("a", "b"),
    )
    ledger.put([StoredEntry(pattern, ())])
    assert ledger.get(["ns:p"])["ns:p"].entry == pattern


def peak_bytes(read: Callable[[], object]) -> int:
    """The most memory ``read`` held at once, above what was held before."""
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        read()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - before


def test_long_entries_are_read_without_a_python_object_per_float(tmp_path: Path) -> None:
    ledger = open_sqlite(tmp_path).ledger
    chunks, dimension = 2_000, 384
    vectors = np.random.default_rng(1).standard_normal((chunks, dimension)).astype(np.float32)
    e = make_entry("long", "text")
    ledger.put(
        [
            StoredEntry(
                e, tuple(Chunk(e.key, n, f"chunk {n}", tuple(v)) for n, v in enumerate(vectors))
            )
        ]
    )
    matrix_bytes = chunks * dimension * 4  # 3 MB; as Python floats, over 24 MB
    assert np.array_equal(ledger.vectors(["ns:long"])["ns:long"], vectors)
    assert peak_bytes(lambda: ledger.vectors(["ns:long"])) < 2 * matrix_bytes
    assert ledger.passages(["ns:long"])["ns:long"][1][-1] == f"chunk {chunks - 1}"
    assert peak_bytes(lambda: ledger.passages(["ns:long"])) < matrix_bytes / 10
