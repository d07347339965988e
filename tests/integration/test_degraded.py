"""The service keeps working, and says so, without a model or with damaged indexes."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

from chromadb.api.shared_system_client import SharedSystemClient

from service.domain.entries import Entry, Mode, Tier
from service.domain.model import Filters
from service.domain.search.query import SearchQuery
from service.lifespan import open_runtime
from service.settings import Settings
from service.stores.embedder import SentenceTransformerEmbedder


def query(text: str, mode: Mode = "auto") -> SearchQuery:
    return SearchQuery(text, Filters("ns", ("A", "C", "E"), time.time()), mode=mode)


def entry(id: str, text: str, tier: Tier = "A") -> Entry:
    return Entry(id=id, namespace="ns", tier=tier, text=text, timestamp=time.time())


def test_without_a_model_writes_land_and_are_embedded_when_it_is_back(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    broken = Settings().replace(data_dir=tmp_path, embedding_model=str(tmp_path / "no-such-model"))
    degraded = open_runtime(broken)
    try:
        assert (
            degraded.stores.embedder is None
            and "embedding model unavailable" in degraded.stores.degraded[0]
        )
        outcome = degraded.memory.writer.write([entry("1", "we adopted trunk based development")])
        assert (outcome.embedded, outcome.indexed) == (0, 1)
        found = degraded.searcher.search(query("trunk development"))
        assert found.mode == "bm25" and found.degraded
        assert [r.entry.id for r in found.results] == ["1"]
    finally:
        degraded.close()

    healthy = open_runtime(Settings().replace(data_dir=tmp_path), embedder=embedder)
    try:
        found = healthy.searcher.search(query("branching strategy", mode="vector"))
        assert [r.entry.id for r in found.results] == ["1"]
        assert [h.action for h in healthy.stores.ledger.history("ns:1")] == ["created", "embedded"]
    finally:
        healthy.close()


def reopen_after(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, damage: Callable[[Path], None]
) -> list[str]:
    settings = Settings().replace(data_dir=tmp_path)
    first = open_runtime(settings, embedder=embedder)
    first.memory.writer.write(
        [entry("a", "postgres replication lag"), entry("e", "lag alert", "E")]
    )
    first.close()
    damage(tmp_path)
    SharedSystemClient.clear_system_cache()
    second = open_runtime(settings, embedder=embedder)
    try:
        bm25 = [r.entry.id for r in second.searcher.search(query("lag", "bm25")).results]
        vector = [
            r.entry.id for r in second.searcher.search(query("replication", "vector")).results
        ]
        return sorted(bm25) + vector
    finally:
        second.close()


def test_missing_tantivy_index_is_rebuilt(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    assert reopen_after(tmp_path, embedder, lambda d: shutil.rmtree(d / "tantivy")) == [
        "a",
        "e",
        "a",
    ]


def test_corrupt_tantivy_index_is_rebuilt(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    def corrupt(d: Path) -> None:
        (d / "tantivy" / "meta.json").write_text("{ not json")

    assert reopen_after(tmp_path, embedder, corrupt) == ["a", "e", "a"]


def test_missing_chroma_data_is_rebuilt(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    assert reopen_after(tmp_path, embedder, lambda d: shutil.rmtree(d / "chroma")) == [
        "a",
        "e",
        "a",
    ]


def test_corrupt_chroma_data_is_set_aside_and_rebuilt(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    def corrupt(d: Path) -> None:
        (d / "chroma" / "chroma.sqlite3").write_bytes(b"garbage" * 100)

    assert reopen_after(tmp_path, embedder, corrupt) == ["a", "e", "a"]
    assert list(tmp_path.glob("chroma.unreadable-*"))
