"""The Tantivy keyword store."""

from __future__ import annotations

import time

import pytest

from service.domain.models import Chunk, Entry, Filters, StoredEntry
from service.stores.tantivy import TantivyKeywordStore

NOW = time.time()


def put(store: TantivyKeywordStore, *entries: Entry) -> None:
    store.apply([StoredEntry(e, (Chunk(e.key, 0, e.text),)) for e in entries], ())


def entry(id: str, text: str, tier: str = "E", **fields) -> Entry:
    return Entry(
        id=id,
        namespace=fields.pop("namespace", "ns"),
        tier=tier,
        text=text,
        timestamp=fields.pop("timestamp", NOW),
        **fields,
    )


def search(store: TantivyKeywordStore, text: str, **changes) -> list[str]:
    base = {"namespace": "ns", "tiers": ("A", "C", "E"), "now": NOW}
    return [h.key for h in store.search(text, Filters(**{**base, **changes}), 10)]


@pytest.fixture
def store(tmp_path) -> TantivyKeywordStore:
    return TantivyKeywordStore(tmp_path / "index")


@pytest.mark.parametrize(
    "query",
    ["deploy AND (", 'title:"x', "a:b", "*", "+-!^~", "deploy OR", "[1 TO", "\\", "ünïcödé ✓"],
)
def test_query_syntax_in_user_text_never_raises(store, query: str) -> None:
    put(store, entry("1", "deploy failed"))
    assert search(store, query) in ([], ["ns:1"])


def test_english_stemming_matches_word_forms(store) -> None:
    put(store, entry("1", "The deployment was running slowly"))
    assert search(store, "deployments run") == ["ns:1"]


def test_visible_right_after_write_and_gone_after_delete(store) -> None:
    put(store, entry("1", "migrate the billing tables"))
    assert search(store, "billing") == ["ns:1"]
    store.apply((), ["ns:1"])
    assert search(store, "billing") == []


def test_rewriting_a_key_replaces_the_document(store) -> None:
    put(store, entry("1", "first version"))
    put(store, entry("1", "second edition"))
    assert search(store, "first") == []
    assert search(store, "second") == ["ns:1"]
    assert store.count() == 1


def test_filters(store) -> None:
    put(
        store,
        entry("1", "build log", speaker="ci", chain_type="build", tags=("nightly",)),
        entry("2", "build log", tier="C", expires_at=NOW - 1),
        entry("3", "build log", tier="A", timestamp=NOW - 7200, archived=True),
        entry("4", "build log", namespace="other"),
    )
    assert search(store, "build") == ["ns:1"]
    assert search(store, "build", speaker="ci", chain_type="build", tags=("nightly",)) == ["ns:1"]
    assert search(store, "build", speaker="someone") == []
    assert search(store, "build", include_archived=True, tiers=("A",)) == ["ns:3"]
    assert search(store, "build", include_archived=True, until=NOW - 3600) == ["ns:3"]
    assert search(store, "build", since=NOW - 60) == ["ns:1"]
    assert search(store, "build", namespace="other") == ["other:4"]


def test_speaker_is_searchable(store) -> None:
    put(store, entry("1", "I like hiking", speaker="Caroline"), entry("2", "I like hiking"))
    assert search(store, "what does caroline like")[0] == "ns:1"


def test_clear_and_reopen(store, tmp_path) -> None:
    put(store, entry("1", "kept on disk"))
    store.close()
    reopened = TantivyKeywordStore(tmp_path / "index")
    assert search(reopened, "disk") == ["ns:1"]
    reopened.clear()
    assert reopened.count() == 0
