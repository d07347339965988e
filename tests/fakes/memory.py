"""A ``Memory`` over fresh fakes, for the unit tests that write entries and read them back."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from service.domain.memory import Memory
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


def fake_memory(
    chunking: ChunkingSettings = CHUNKING, *, clock: Callable[[], float] = time.time
) -> FakeStores:
    """A ``Memory`` with a model, over an empty fake ledger, vector store and keyword store."""
    ledger, vectors, keywords, embedder = (
        FakeLedger(),
        FakeVectorStore(),
        FakeKeywordStore(),
        FakeEmbedder(),
    )
    memory = Memory.over(ledger, vectors, keywords, embedder, chunking, clock=clock)
    return FakeStores(ledger, vectors, keywords, embedder, memory)
