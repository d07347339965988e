"""What the Tantivy keyword store adds to the keyword store's contract
(tests/contracts/test_keyword_store.py): English stemming, and its index on disk."""

from __future__ import annotations

from pathlib import Path

from service.domain.models import Chunk, StoredEntry
from service.stores.tantivy import TantivyKeywordStore
from tests.fakes import make_entry, make_filters


def put(store: TantivyKeywordStore, id: str, text: str) -> None:
    e = make_entry(id, text, "E")
    store.apply([StoredEntry(e, (Chunk(e.key, 0, text),))], ())


def search(store: TantivyKeywordStore, text: str) -> list[str]:
    return [h.key for h in store.search(text, make_filters(), 10)]


def test_english_stemming_matches_word_forms(tmp_path: Path) -> None:
    store = TantivyKeywordStore(tmp_path / "index")
    put(store, "1", "The deployment was running slowly")
    assert search(store, "deployments run") == ["ns:1"]


def test_clear_and_reopen(tmp_path: Path) -> None:
    store = TantivyKeywordStore(tmp_path / "index")
    put(store, "1", "kept on disk")
    store.close()
    reopened = TantivyKeywordStore(tmp_path / "index")
    assert search(reopened, "disk") == ["ns:1"]
    reopened.clear()
    reopened.close()
    assert TantivyKeywordStore(tmp_path / "index").count() == 0
