"""What a search reads from the ledger: each candidate's entry with its chunk texts, and
chunk vectors as one matrix per entry, a few entries at a time; never whole entries with
their vectors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import pytest

from service.domain.model import Matrix
from service.domain.search import fusion as fusion_module
from service.domain.search.fusion import VECTOR_BATCH
from service.domain.search.query import SearchQuery
from service.domain.search.searcher import Searcher
from service.domain.search.similarity import best_cosines
from service.settings import ChunkingSettings
from tests.fakes import (
    fake_memory,
    make_entry,
    make_filters,
)
from tests.settings import search_settings

ENTRIES = VECTOR_BATCH + 3
LONG = " ".join(f"word{n}" for n in range(2_000))


@pytest.mark.parametrize("fusion", ["score", "rrf"])
def test_a_search_over_long_entries_reads_texts_and_vector_matrices_only(
    fusion: Literal["score", "rrf"], monkeypatch: pytest.MonkeyPatch
) -> None:
    stores = fake_memory(ChunkingSettings(words=20, overlap=5))
    ledger, vectors, embedder = stores.ledger, stores.vectors, stores.embedder
    stores.memory.writer.write(
        [make_entry(f"e{n}", f"billing outage {n} {LONG}") for n in range(ENTRIES)]
    )
    # The vector list finds nothing: every cosine comes from the ledger's vectors.
    vectors.clear()
    given: list[Matrix] = []

    def spy(vector: Sequence[float], matrices: Mapping[str, Matrix]) -> dict[str, float]:
        given.extend(matrices.values())
        return best_cosines(vector, matrices)

    monkeypatch.setattr(fusion_module, "best_cosines", spy)
    ledger.reads.clear()
    settings = search_settings(fusion=fusion)
    searcher = Searcher(ledger, vectors, stores.keywords, embedder, settings)
    outcome = searcher.search(SearchQuery("billing outage", make_filters(), "hybrid", ENTRIES))

    assert len(outcome.results) == ENTRIES
    assert all(r.relevance is not None and r.relevance > 0 for r in outcome.results)
    assert {read for read, _ in ledger.reads} == {"passages", "vectors"}
    vector_reads = [keys for read, keys in ledger.reads if read == "vectors"]
    assert max(len(keys) for keys in vector_reads) <= VECTOR_BATCH
    chunks = len(ledger.entries["ns:e0"].chunks)
    assert chunks > 100
    assert len(given) == ENTRIES
    assert all(isinstance(m, np.ndarray) and m.dtype == np.float32 for m in given)
    assert {m.shape for m in given} == {(chunks, embedder.dimension)}
