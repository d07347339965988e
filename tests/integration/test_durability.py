"""Acknowledged writes survive a crash between the ledger and the indexes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from service.domain.entries import TIERS, Entry
from service.domain.model import Filters
from service.domain.search.query import SearchQuery
from service.lifespan import open_runtime
from service.settings import Settings
from service.stores.embedder import SentenceTransformerEmbedder


def test_pending_writes_and_deletes_are_finished_at_start(
    tmp_path: Path, chroma_url: str, embedder: SentenceTransformerEmbedder
) -> None:
    settings = Settings().replace(data_dir=tmp_path, chroma_url=chroma_url)
    first = open_runtime(settings, embedder=embedder)
    now = time.time()
    kept = Entry(
        id="kept", namespace="ns", tier="A", text="decided to shard by tenant", timestamp=now
    )
    doomed = Entry(id="doomed", namespace="ns", tier="E", text="shard job log", timestamp=now)
    first.memory.writer.write([doomed])
    # A crash after the ledger commit, before the indexes: the write is acknowledged.
    first.stores.ledger.put(first.memory.preparer.prepare([kept]))
    first.stores.ledger.mark_deleting(["ns:doomed"])
    first.close()

    second = open_runtime(settings, embedder=embedder)
    try:
        query = SearchQuery("shard tenant", Filters("ns", ("A", "C", "E"), time.time()))
        found = [r.entry.id for r in second.searcher.search(query).results]
        assert found == ["kept"]
        assert second.stores.ledger.unsynced() == ([], [])
        assert second.stores.keywords.count() == 1
    finally:
        second.close()


def test_rebuild_recreates_indexes_from_the_ledger(
    tmp_path: Path, chroma_url: str, embedder: SentenceTransformerEmbedder
) -> None:
    resources = open_runtime(
        Settings().replace(data_dir=tmp_path, chroma_url=chroma_url), embedder=embedder
    )
    try:
        now = time.time()
        resources.memory.writer.write(
            [
                Entry(
                    id=str(n),
                    namespace="ns",
                    tier=TIERS[n % 3],
                    text=f"note {n} about caching",
                    timestamp=now,
                    expires_at=now + 999 if n % 3 == 1 else None,
                )
                for n in range(9)
            ]
        )
        vectors, keywords = resources.stores.vectors, resources.stores.keywords
        vectors.delete(sorted(vectors.entry_keys()))
        keywords.replace_all([])
        assert keywords.count() == 0 and vectors.count("A") == vectors.count("C") == 0
        assert resources.memory.repair.rebuild() == 9
        assert resources.stores.keywords.count() == 9
        assert resources.stores.vectors.count("A") == 3 and resources.stores.vectors.count("C") == 3
        query = SearchQuery("caching", Filters("ns", ("A", "C", "E"), time.time()), limit=20)
        assert len(resources.searcher.search(query).results) == 9
    finally:
        resources.close()


def test_a_tier_e_write_asks_nothing_of_chroma_unless_its_id_had_vectors(
    tmp_path: Path,
    chroma_url: str,
    embedder: SentenceTransformerEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runtime = open_runtime(
        Settings().replace(data_dir=tmp_path, chroma_url=chroma_url), embedder=embedder
    )
    try:
        now = time.time()
        memory, vectors = runtime.memory, runtime.stores.vectors
        chroma: Any = getattr(vectors, "wrapped", vectors)  # the store under any telemetry
        fact = Entry(
            id="x", namespace="ns", tier="A", text="decided to shard by tenant", timestamp=now
        )
        memory.writer.write([fact])
        assert chroma.entry_keys() == {"ns:x"}
        calls: list[str] = []  # what is asked of Chroma from here on
        for name in ("upsert", "delete", "search"):
            real = getattr(chroma, name)

            def record(*args: Any, name: str = name, real: Any = real) -> Any:
                calls.append(name)
                return real(*args)

            monkeypatch.setattr(chroma, name, record)

        logs = [
            Entry(id=f"log{n}", namespace=ns, tier="E", text=f"shard job {n} done", timestamp=now)
            for n, ns in enumerate(["ns", "ns", "other"])
        ]
        assert memory.writer.write(logs).indexed == 3
        assert calls == []  # new tier E entries: nothing there to delete, nothing to add

        rewritten = Entry(id="x", namespace="ns", tier="E", text="shard job log", timestamp=now)
        assert memory.writer.write([rewritten]).indexed == 1
        assert calls == ["delete"]  # its vectors as tier A
        monkeypatch.undo()
        assert chroma.entry_keys() == set()
        filters = Filters("ns", ("A", "C", "E"), time.time())
        vector = runtime.searcher.search(SearchQuery("shard by tenant", filters, mode="vector"))
        assert [r.entry.id for r in vector.results] == []
        keyword = runtime.searcher.search(SearchQuery("shard job log", filters, mode="bm25"))
        assert "x" in [r.entry.id for r in keyword.results]
        assert runtime.stores.ledger.unsynced() == ([], [])
        assert runtime.memory.repair.indexes_match_ledger()
    finally:
        runtime.close()
