"""In-memory stand-ins for the ports in ``service.domain.ports``, for fast unit tests.

``tests/contracts`` holds each fake to the real adapter it stands for:

- ``FakeLedger`` keeps entry states and history like ``SqlLedger`` on SQLite and Postgres,
  and a change log like theirs;
- ``FakeVectorStore`` holds one record per chunk in one collection per embedded tier, like
  ``ChromaVectorStore`` (so ``count`` counts chunks), and has no ``archived`` field: Memory
  keeps archived entries out of it;
- ``FakeKeywordStore`` holds one document per entry, like ``TantivyKeywordStore``;
- ``FakeCatalog``, ``FakeInteractionLog``, ``FakeRunLog`` and ``FakeFiles`` stand for the
  SQLite and Postgres catalogs, interaction logs and run logs and for ``LocalFiles``;
- ``FakeCoordination`` leads while the test says so and holds job locks like
  ``LocalCoordination`` (one process);
- ``FakeEmbedder`` and ``FakeReranker`` are deterministic models, ``FakeClock`` a clock the
  test sets, ``FakeCheckpoint`` a replica's checkpoint kept in memory;
- ``FakeUpstream`` answers searches like ``HttpUpstream`` talking to a strata, with the
  failures and latency a test scripts;
- ``fake_memory`` builds a ``Memory`` over a fresh fake ledger, vector store, keyword store
  and embedder, and hands them back with it (``FakeStores``); ``memory_over`` composes one
  over the stores a test gives, and ``stored_entry`` reads an entry back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.fakes.catalog import FakeCatalog
from tests.fakes.checkpoint import FakeCheckpoint
from tests.fakes.clock import CLOCK_START, FakeClock
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.entries import T0, live, make_entry, make_filters, matches, words
from tests.fakes.files import FakeFiles
from tests.fakes.interactions import FakeInteractionLog
from tests.fakes.jobs import FakeCoordination, FakeRunLog
from tests.fakes.keyword_store import FakeKeywordStore
from tests.fakes.ledger import FakeLedger
from tests.fakes.memory import FakeStores, fake_memory, memory_over, stored_entry
from tests.fakes.reranker import FakeReranker
from tests.fakes.upstream import FakeUpstream
from tests.fakes.vector_store import FakeVectorStore, vector_matches

__all__ = [
    "CLOCK_START",
    "T0",
    "FakeCatalog",
    "FakeCheckpoint",
    "FakeClock",
    "FakeCoordination",
    "FakeEmbedder",
    "FakeFiles",
    "FakeInteractionLog",
    "FakeKeywordStore",
    "FakeLedger",
    "FakeReranker",
    "FakeRunLog",
    "FakeStores",
    "FakeUpstream",
    "FakeVectorStore",
    "fake_memory",
    "live",
    "make_entry",
    "make_filters",
    "matches",
    "memory_over",
    "stored_entry",
    "vector_matches",
    "words",
]

if TYPE_CHECKING:  # `mypy tests/fakes` checks that each fake satisfies its port.
    from service.domain.ports import (
        Catalog,
        Checkpoint,
        Clock,
        Coordination,
        Embedder,
        Files,
        InteractionLog,
        KeywordStore,
        Ledger,
        Reranker,
        RunLog,
        Upstream,
        VectorStore,
    )

    _satisfied: tuple[
        Embedder,
        Ledger,
        VectorStore,
        KeywordStore,
        Catalog,
        InteractionLog,
        RunLog,
        Coordination,
        Files,
        Reranker,
        Clock,
        Checkpoint,
        Upstream,
    ] = (
        FakeEmbedder(),
        FakeLedger(),
        FakeVectorStore(),
        FakeKeywordStore(),
        FakeCatalog(),
        FakeInteractionLog(),
        FakeRunLog(),
        FakeCoordination(),
        FakeFiles(),
        FakeReranker(),
        FakeClock(),
        FakeCheckpoint(),
        FakeUpstream(),
    )
