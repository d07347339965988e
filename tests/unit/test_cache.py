"""The query cache: values live until their namespace changes or their time runs out."""

from __future__ import annotations

from service.lib.cache import QueryCache
from tests.fakes import FakeClock


def test_a_kept_value_is_returned_for_the_same_namespace_and_key() -> None:
    cache: QueryCache[str] = QueryCache(size=4, seconds=30, max_bytes=10**6, weigh=len)
    cache.put("ns", "q", "outcome", cache.generation("ns"))
    assert cache.get("ns", "q") == "outcome"
    assert cache.get("other", "q") is None
    assert cache.get("ns", "another query") is None
    assert (cache.hits, cache.misses) == (1, 2)


def test_a_write_to_the_namespace_drops_its_values_only() -> None:
    cache: QueryCache[str] = QueryCache(size=4, seconds=30, max_bytes=10**6, weigh=len)
    cache.put("ns", "q", "old", cache.generation("ns"))
    cache.put("other", "q", "theirs", cache.generation("other"))
    cache.invalidate(["ns"])
    assert cache.get("ns", "q") is None
    assert cache.get("other", "q") == "theirs"


def test_a_value_computed_across_a_write_is_not_kept() -> None:
    cache: QueryCache[str] = QueryCache(size=4, seconds=30, max_bytes=10**6, weigh=len)
    before = cache.generation("ns")
    cache.invalidate(["ns"])  # a write lands while the search runs
    cache.put("ns", "q", "stale", before)
    assert cache.get("ns", "q") is None


def test_values_expire_after_their_time(clock: FakeClock) -> None:
    cache: QueryCache[str] = QueryCache(size=4, seconds=30, clock=clock, max_bytes=10**6, weigh=len)
    cache.put("ns", "q", "outcome", cache.generation("ns"))
    clock.now += 30
    assert cache.get("ns", "q") == "outcome"
    clock.now += 0.1
    assert cache.get("ns", "q") is None


def test_the_least_recently_used_value_goes_first() -> None:
    cache: QueryCache[str] = QueryCache(size=2, seconds=30, max_bytes=10**6, weigh=len)
    for key in ("a", "b"):
        cache.put("ns", key, key, cache.generation("ns"))
    assert cache.get("ns", "a") == "a"  # b is now the oldest
    cache.put("ns", "c", "c", cache.generation("ns"))
    assert cache.get("ns", "b") is None
    assert cache.get("ns", "a") == "a" and cache.get("ns", "c") == "c"


def test_size_zero_keeps_nothing() -> None:
    cache: QueryCache[str] = QueryCache(size=0, seconds=30, max_bytes=10**6, weigh=len)
    cache.put("ns", "q", "outcome", cache.generation("ns"))
    assert cache.get("ns", "q") is None


def test_the_byte_budget_drops_the_oldest_and_refuses_what_alone_exceeds_it() -> None:
    cache: QueryCache[str] = QueryCache(size=100, seconds=30, max_bytes=10, weigh=len)
    cache.put("ns", "a", "aaaa", cache.generation("ns"))
    cache.put("ns", "b", "bbbb", cache.generation("ns"))
    cache.put("ns", "c", "cccc", cache.generation("ns"))
    assert (cache.get("ns", "a"), cache.get("ns", "b"), cache.get("ns", "c")) == (
        None,
        "bbbb",
        "cccc",
    )
    assert cache.bytes == 8
    cache.put("ns", "huge", "x" * 11, cache.generation("ns"))
    assert cache.get("ns", "huge") is None and cache.bytes == 8
    cache.put("ns", "b", "bb", cache.generation("ns"))
    assert cache.bytes == 6
