"""Model work at read time: the counter, what searches add to it, and the embedding the
tiers avoided once read-time tokens are paid."""

from __future__ import annotations

import threading

import pytest

from service.domain.model import StoredCounts
from service.domain.namespaces.stats import avoided, summarize
from service.domain.search.query import SearchQuery
from service.domain.search.searcher import Searcher
from service.domain.search.usage import (
    ModelWork,
    ReadModelUsage,
    ReadUsage,
    counted,
    uncounted,
)
from tests.fakes import (
    FakeClock,
    FakeEmbedder,
    fake_memory,
    make_entry,
    make_filters,
)
from tests.settings import search_settings


def test_a_counter_starts_empty_at_its_clock() -> None:
    usage = ReadModelUsage(FakeEmbedder().count_tokens, FakeClock(1234.0))
    assert usage.snapshot() == ReadUsage(since=1234.0)


def test_query_work_counts_calls_texts_and_tokens() -> None:
    model = FakeEmbedder()
    usage = ReadModelUsage(model.count_tokens)
    usage.queries_embedded(["deploy failed"])
    usage.queries_embedded(["one", "two three"])
    usage.queries_embedded([])
    # The fake counts words plus two special tokens.
    assert usage.snapshot().queries == ModelWork(calls=2, texts=3, tokens=4 + 3 + 4)


def test_nothing_is_counted_within_uncounted_and_counting_resumes_after() -> None:
    model = FakeEmbedder()
    usage = ReadModelUsage(model.count_tokens)
    with uncounted():
        assert not counted()
        usage.queries_embedded(["deploy failed"])
        usage.passages_embedded(["a log line"], ["ns:e1"])
    assert counted()
    assert usage.snapshot().queries == ModelWork() and usage.snapshot().passages == {}
    usage.queries_embedded(["deploy failed"])
    assert usage.snapshot().queries.calls == 1


def test_an_uncounted_search_is_not_told_to_the_metrics() -> None:
    stores = fake_memory()
    stores.memory.writer.write([make_entry("e1", "deploys run on Fridays")])
    told: list[float] = []
    searcher = Searcher(
        stores.ledger,
        stores.vectors,
        stores.keywords,
        stores.embedder,
        search_settings(),
        on_search=lambda _, seconds: told.append(seconds),
    )
    query = SearchQuery("deploys", make_filters(namespace="ns"))
    with uncounted():
        assert searcher.search(query).results
    assert told == []
    searcher.search(query)
    assert len(told) == 1


def test_passage_work_is_counted_per_namespace_of_the_entry() -> None:
    model = FakeEmbedder()
    usage = ReadModelUsage(model.count_tokens)
    usage.passages_embedded(["a b c", "d", "e f"], ["ns:1", "ns:2", "other:x:y"])
    usage.passages_embedded(["g"], ["ns:3"])
    assert usage.snapshot().passages == {
        "ns": ModelWork(calls=2, texts=3, tokens=5 + 3 + 3),
        "other": ModelWork(calls=1, texts=1, tokens=4),
    }


def test_counts_from_many_threads_add_up() -> None:
    usage = ReadModelUsage(lambda texts: [1] * len(texts))

    def work() -> None:
        for _ in range(200):
            usage.queries_embedded(["q"])
            usage.passages_embedded(["p", "p"], ["ns:a", "ns:b"])

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seen = usage.snapshot()
    assert seen.queries == ModelWork(1600, 1600, 1600)
    assert seen.passages == {"ns": ModelWork(1600, 3200, 3200)}


def searched(unembedded: int) -> tuple[ReadModelUsage, Searcher, FakeEmbedder]:
    """A searcher counting its model work over one tier A entry and five tier E ones."""
    stores = fake_memory()
    model = stores.embedder
    stores.memory.writer.write(
        [make_entry("plan", "kubernetes upgrade plan", "A")]
        + [make_entry(f"log{n}", "kubernetes upgrade " + "x " * n, "E") for n in range(5)]
    )
    usage = ReadModelUsage(model.count_tokens)
    settings = search_settings(fusion="score", unembedded_candidates=unembedded)
    searcher = Searcher(
        stores.ledger, stores.vectors, stores.keywords, model, settings, usage=usage
    )
    model.calls.clear()
    return usage, searcher, model


def search(searcher: Searcher, text: str) -> None:
    searcher.search(SearchQuery(text, make_filters(), "auto", 10))


def test_a_search_counts_its_query_once_and_a_cached_query_vector_costs_nothing() -> None:
    usage, searcher, model = searched(unembedded=0)
    search(searcher, "kubernetes upgrade")
    search(searcher, "kubernetes upgrade")
    assert model.calls == [["kubernetes upgrade"]]
    assert usage.snapshot().queries == ModelWork(
        1, 1, FakeEmbedder.token_count("kubernetes upgrade")
    )
    assert usage.snapshot().passages == {}


def test_passages_embedded_at_query_time_are_counted_once_each() -> None:
    usage, searcher, model = searched(unembedded=3)
    search(searcher, "kubernetes upgrade")
    passages = model.calls[1]
    assert len(passages) == 3
    expected = ModelWork(1, 3, sum(FakeEmbedder.token_count(p) for p in passages))
    assert usage.snapshot().passages == {"ns": expected}
    # Another query with the same candidates: their passage vectors are kept, no model call.
    search(searcher, "upgrade kubernetes")
    assert usage.snapshot().passages == {"ns": expected}
    assert usage.snapshot().queries.calls == 2


ROWS = [
    StoredCounts("ns", "A", False, entries=1, vectors=1, tokens_embedded=100, tokens=100),
    StoredCounts("ns", "E", False, entries=9, vectors=0, tokens_embedded=0, tokens=900),
    StoredCounts("other", "E", False, entries=5, vectors=0, tokens_embedded=0, tokens=1000),
]


def test_read_time_tokens_count_against_the_embedding_avoided() -> None:
    usage = ReadUsage(
        since=5.0,
        queries=ModelWork(7, 7, 70),
        passages={"ns": ModelWork(2, 4, 150), "other": ModelWork(1, 1, 10)},
    )
    stats = summarize(ROWS, lambda ns: True, usage)
    assert stats.totals.tokens_read_time == 160
    assert stats.totals.embedding_avoided == pytest.approx(1 - (100 + 160) / 2000)
    assert stats.read_passages == dict(usage.passages)
    assert stats.read_time is not None
    assert stats.read_time.passages == ModelWork(3, 5, 160)
    # Query tokens are not counted against it: plain RAG embeds the query too.
    assert stats.read_time.queries == ModelWork(7, 7, 70)


def test_a_caller_limited_to_namespaces_sees_their_read_time_work_only() -> None:
    usage = ReadUsage(
        since=5.0,
        queries=ModelWork(7, 7, 70),
        passages={"ns": ModelWork(2, 4, 150), "other": ModelWork(1, 1, 10)},
    )
    stats = summarize(ROWS, lambda ns: ns == "ns", usage, every_namespace=False)
    assert list(stats.namespaces) == ["ns"]
    assert stats.totals.tokens_read_time == 150
    assert stats.totals.embedding_avoided == pytest.approx(1 - 250 / 1000)
    assert stats.read_time is not None and stats.read_time.queries is None


def test_without_read_time_work_the_share_is_the_write_time_one() -> None:
    stats = summarize(ROWS, lambda ns: True, ReadUsage(since=0.0))
    assert stats.totals.tokens_read_time == 0
    assert stats.totals.embedding_avoided == pytest.approx(1 - 100 / 2000)
    assert summarize(ROWS, lambda ns: True).read_time is None


def test_a_namespace_whose_entries_are_gone_still_shows_its_read_time_work() -> None:
    usage = ReadUsage(since=0.0, passages={"gone": ModelWork(1, 2, 30)})
    stats = summarize(ROWS, lambda ns: True, usage)
    assert stats.namespaces["gone"] == {}
    assert stats.totals.tokens_read_time == 30


def test_the_avoided_share_falls_below_zero_when_reads_embed_more_than_everything() -> None:
    assert avoided(100, 0, 1000) == pytest.approx(0.9)
    assert avoided(100, 1400, 1000) == pytest.approx(-0.5)
    assert avoided(0, 10, 0) is None
