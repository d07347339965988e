"""A ``Memory`` over fresh fakes, for the unit tests that write entries and read them back."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from service.domain.entries import StoredEntry
from service.domain.memory import Indexes, Memory, Preparer
from service.domain.ports import Embedder, KeywordStore, Ledger, VectorStore
from service.settings import ChunkingSettings
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.keyword_store import FakeKeywordStore
from tests.fakes.ledger import FakeLedger
from tests.fakes.vector_store import FakeVectorStore
from tests.settings import CHUNKING


@dataclass
class FakeStores:
    """The fakes ``memory`` writes to, each typed as its fake for the test to look into."""

    ledger: FakeLedger
    vectors: FakeVectorStore
    keywords: FakeKeywordStore
    embedder: FakeEmbedder
    memory: Memory


def memory_over(
    ledger: Ledger,
    vectors: VectorStore,
    keywords: KeywordStore,
    embedder: Embedder | None,
    chunking: ChunkingSettings = CHUNKING,
    *,
    clock: Callable[[], float] = time.time,
    on_change: Callable[[Iterable[str]], None] | None = None,
) -> Memory:
    """Every part of the memory over these stores, as the wiring composes them
    (``embedder`` None: no model)."""
    indexes = Indexes(ledger, ledger, vectors, keywords, clock=clock, on_change=on_change)
    return Memory.over(ledger, indexes, Preparer(embedder, chunking))


def stored_entry(memory: Memory, key: str) -> StoredEntry | None:
    """The entry ``key`` as the ledger holds it, or None."""
    return memory.entries.get([key]).get(key)


def fake_memory(
    chunking: ChunkingSettings = CHUNKING,
    *,
    clock: Callable[[], float] = time.time,
    ledger: FakeLedger | None = None,
    vectors: FakeVectorStore | None = None,
    keywords: FakeKeywordStore | None = None,
    on_change: Callable[[Iterable[str]], None] | None = None,
) -> FakeStores:
    """A ``Memory`` with a model, over the fakes given (a test's own, or shared with another
    memory) and an empty fake ledger, vector store and keyword store for those not given."""
    ledger = FakeLedger() if ledger is None else ledger
    vectors = FakeVectorStore() if vectors is None else vectors
    keywords = FakeKeywordStore() if keywords is None else keywords
    embedder = FakeEmbedder()
    memory = memory_over(
        ledger, vectors, keywords, embedder, chunking, clock=clock, on_change=on_change
    )
    return FakeStores(ledger, vectors, keywords, embedder, memory)
