"""The keyword store's contract: FakeKeywordStore and TantivyKeywordStore."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from service.domain.entries import Chunk, Entry, StoredEntry, Tier
from service.domain.ports import KeywordStore
from service.stores.tantivy import TantivyKeywordStore
from tests.fakes import T0, FakeKeywordStore, make_entry, make_filters

NOW = T0 + 1
"""The ``now`` of ``make_filters``."""


Adapter = FakeKeywordStore | TantivyKeywordStore
"""The implementations held to the contract (``clear`` is theirs, not the port's)."""


@pytest.fixture(params=["fake", "tantivy"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Adapter:
    if request.param == "fake":
        return FakeKeywordStore()
    return TantivyKeywordStore(tmp_path / "index")


def stored(*entries: Entry) -> list[StoredEntry]:
    return [StoredEntry(e, (Chunk(e.key, 0, e.text),)) for e in entries]


def put(store: KeywordStore, *entries: Entry) -> None:
    store.apply(stored(*entries), ())


def entry(id: str, text: str, tier: Tier = "E", **fields: Any) -> Entry:
    return make_entry(id, text, tier, **fields)


def search(store: KeywordStore, text: str, limit: int = 10, **changes: Any) -> list[str]:
    return [h.key for h in store.search(text, make_filters(**changes), limit)]


@pytest.mark.parametrize(
    "query",
    ["deploy AND (", 'title:"x', "a:b", "*", "+-!^~", "deploy OR", "[1 TO", "\\", "ünïcödé ✓"],
)
def test_query_syntax_in_user_text_never_raises(store: KeywordStore, query: str) -> None:
    put(store, entry("1", "deploy failed"))
    assert search(store, query) in ([], ["ns:1"])


def test_visible_right_after_write_and_gone_after_delete(store: KeywordStore) -> None:
    put(store, entry("1", "migrate the billing tables"), entry("2", "billing report"))
    assert set(search(store, "billing")) == {"ns:1", "ns:2"}
    store.apply((), ["ns:1", "ns:missing"])
    assert search(store, "billing") == ["ns:2"]
    assert store.count() == 1


def test_writes_and_deletes_of_one_call_land_together(store: KeywordStore) -> None:
    put(store, entry("old", "billing"))
    store.apply(stored(entry("new", "billing")), ["ns:old"])
    assert search(store, "billing") == ["ns:new"]


def test_rewriting_a_key_replaces_the_document(store: KeywordStore) -> None:
    put(store, entry("1", "first version"))
    put(store, entry("1", "second edition"))
    assert search(store, "first") == []
    assert search(store, "second") == ["ns:1"]
    assert store.count() == 1


def test_more_of_the_query_matched_ranks_first_up_to_the_limit(store: KeywordStore) -> None:
    put(
        store,
        entry("one", "the cache was cold this morning"),
        entry("both", "the cache invalidation was slow this morning"),
        entry("none", "lunch menu for the week"),
        entry("other", "a cache miss storm at noon"),
    )
    assert search(store, "cache invalidation")[0] == "ns:both"
    assert set(search(store, "cache invalidation")) == {"ns:both", "ns:one", "ns:other"}
    assert len(search(store, "cache invalidation", limit=2)) == 2
    assert search(store, "") == []


def test_filters(store: KeywordStore) -> None:
    put(
        store,
        entry("1", "build log", speaker="ci", chain_type="build", tags=("nightly", "x")),
        entry("2", "build log", tier="C", expires_at=NOW - 1),
        entry("3", "build log", tier="A", timestamp=T0 - 7200, archived=True),
        entry("4", "build log", namespace="other"),
        entry("5", "build log", tier="A", kind="pattern", expires_at=NOW + 60),
    )
    assert set(search(store, "build")) == {"ns:1", "ns:5"}
    assert search(store, "build", speaker="ci", chain_type="build", tags=("nightly",)) == ["ns:1"]
    assert search(store, "build", tags=("nightly", "y")) == []
    assert search(store, "build", speaker="someone") == []
    assert search(store, "build", tiers=("E",)) == ["ns:1"]
    assert search(store, "build", kind="pattern") == ["ns:5"]
    assert set(search(store, "build", include_archived=True, tiers=("A", "C"))) == {
        "ns:2",
        "ns:3",
        "ns:5",
    }
    assert search(store, "build", include_archived=True, until=T0 - 3600) == ["ns:3"]
    assert set(search(store, "build", since=T0 - 60)) == {"ns:1", "ns:5"}
    assert search(store, "build", namespace="other") == ["other:4"]


def test_question_words_match_nothing_unless_the_query_has_nothing_else(
    store: KeywordStore,
) -> None:
    put(store, entry("1", "what a day it was"), entry("2", "the billing run"))
    assert search(store, "what about billing?") == ["ns:2"]
    assert search(store, "what was it?") == ["ns:1"]


def test_speaker_is_searchable(store: KeywordStore) -> None:
    put(store, entry("1", "I like hiking", speaker="Caroline"), entry("2", "I like hiking"))
    assert search(store, "what does caroline like")[0] == "ns:1"


@pytest.mark.parametrize("speaker", [None, "Caroline"])
def test_no_score_exceeds_the_bound(store: KeywordStore, speaker: str | None) -> None:
    put(
        store,
        entry("1", "caroline went hiking", speaker=speaker),
        entry("2", "a long note about hiking boots and hiking trails and more hiking"),
        *[entry(f"f{n}", f"filler text number {n}") for n in range(8)],
    )
    for text in ("hiking", "caroline hiking", "caroline", "boots trails"):
        bound = store.statistics(text, "ns").bound
        hits = store.search(text, make_filters(), 10)
        assert hits and all(0 < h.score <= bound for h in hits), (text, hits, bound)
    assert store.statistics("", "ns").bound == 0


def test_no_score_exceeds_the_bound_when_the_query_names_a_speaker(
    store: KeywordStore, request: pytest.FixtureRequest
) -> None:
    if isinstance(store, TantivyKeywordStore):
        request.applymarker(
            pytest.mark.xfail(
                strict=True,
                reason="the bound counts the text field only, while search also scores "
                "the speaker's name in speaker_text: a short turn by a rare speaker among "
                "long turns by others scores up to ~1.2 x the bound",
            )
        )
    put(
        store,
        entry("x", "hi", speaker="Caroline", metadata={"file": "a.md"}),
        *[
            entry(f"f{n}", " ".join(["filler"] * 40), speaker="Bob", metadata={"file": "b.md"})
            for n in range(20)
        ],
    )
    bound = store.statistics("caroline", "ns").bound
    [hit] = store.search("caroline", make_filters(), 10)
    assert hit.score <= bound


def test_replace_all_swaps_the_whole_index(store: KeywordStore) -> None:
    put(store, entry("old", "billing"))
    store.replace_all([stored(entry("a", "billing")), stored(entry("b", "billing"))])
    assert set(search(store, "billing")) == {"ns:a", "ns:b"}
    assert store.count() == 2


def test_replace_all_that_fails_keeps_the_old_index(store: KeywordStore) -> None:
    put(store, entry("old", "billing"))

    def batches() -> Iterator[Sequence[StoredEntry]]:
        yield stored(entry("a", "billing"))
        raise RuntimeError("the ledger went away")

    with pytest.raises(RuntimeError):
        store.replace_all(batches())
    assert search(store, "billing") == ["ns:old"]
    put(store, entry("after", "billing"))  # and it still takes writes
    assert set(search(store, "billing")) == {"ns:old", "ns:after"}


def test_optimize_keeps_every_document(store: KeywordStore) -> None:
    for n in range(5):
        put(store, entry(str(n), "billing"))
    store.apply((), ["ns:0"])
    store.optimize()
    assert store.count() == 4
    put(store, entry("5", "billing"))
    assert len(search(store, "billing")) == 5


def test_clear_empties_the_index(store: Adapter) -> None:
    put(store, entry("1", "billing"), entry("2", "billing", namespace="other"))
    store.clear()
    assert store.count() == 0
    assert search(store, "billing") == []


def scored(store: KeywordStore, text: str, namespace: str = "ns") -> list[tuple[str, float]]:
    hits = store.search(text, make_filters(namespace=namespace), 10)
    return [(h.key, h.score) for h in hits]


def test_a_namespace_scores_by_its_own_entries_alone(store: KeywordStore) -> None:
    put(store, entry("1", "the billing export runs nightly"), entry("2", "billing is green"))
    before = scored(store, "billing export"), store.statistics("billing export", "ns")
    put(store, *[entry(str(n), "billing export", namespace="other") for n in range(40)])
    store.apply((), ["other:3"])
    assert (
        scored(store, "billing export"),
        store.statistics("billing export", "ns"),
    ) == before
    assert store.statistics("billing", "nowhere").bound == 0
    assert search(store, "billing", namespace="nowhere") == []


def test_erasing_a_namespace_leaves_the_others(store: KeywordStore) -> None:
    put(store, entry("1", "billing"), entry("2", "billing", namespace="other"))
    store.erase_namespace("ns")
    store.erase_namespace("never-written")
    assert search(store, "billing") == []
    assert search(store, "billing", namespace="other") == ["other:2"]
    assert store.count() == 1
    put(store, entry("3", "billing"))  # the namespace takes writes again
    assert search(store, "billing") == ["ns:3"]


def test_statistics_count_the_namespaces_own_documents(store: KeywordStore) -> None:
    put(store, entry("1", "deploy export"), entry("2", "deploy"), entry("3", "lunch"))
    put(store, *[entry(str(n), "export", namespace="other") for n in range(5)])
    stats = store.statistics("what about the deploy export?", "ns")
    assert stats.documents == 3
    assert dict(stats.frequencies) == {"deploy": 2, "export": 1}
    assert store.statistics("deploy", "nowhere").documents == 0


def test_a_search_needing_fewer_entries_keeps_every_one_that_could_rank_among_them(
    store: KeywordStore,
) -> None:
    # Groups of entries scoring alike (same words, same length), so ties straddle most cuts.
    texts = ["cache cache cold", "cache warm cold", "cache lunch menu week", "cache"]
    put(store, *(entry(f"e{g}{n}", texts[g]) for g in range(len(texts)) for n in range(6)))
    filters = make_filters()

    def ranked(hits: Sequence[Any]) -> list[tuple[float, str]]:
        return sorted((-round(h.score, 6), h.key) for h in hits)

    every = ranked(store.search("cache cold", filters, 50))
    assert len(every) == 24
    for needed in range(1, 25):
        hits = store.search("cache cold", filters, 50, needed)
        some = ranked(hits)
        # Nothing left out that scores as the last one needed, or better.
        tied = [h for h in every if h[0] <= every[needed - 1][0]]
        assert some[: len(tied)] == tied
        assert set(some) <= set(every)
    assert len(store.search("cache cold", filters, 5, 3)) <= 5
