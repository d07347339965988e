"""Token buckets: a burst of the capacity, then the rate; a refusal says how long to wait,
and that wait is enough."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.lib.buckets import Buckets, TokenBucket

rates = st.floats(min_value=0.01, max_value=1000)
capacities = st.floats(min_value=1, max_value=10_000)
costs = st.floats(min_value=0.01, max_value=20_000)
steps = st.floats(min_value=0, max_value=100)


def test_a_full_bucket_gives_its_capacity_at_once_then_its_rate() -> None:
    bucket = TokenBucket.full(rate=2, capacity=5, now=0)
    assert [bucket.take(0) for _ in range(5)] == [0.0] * 5
    assert bucket.take(0) == pytest.approx(0.5)
    assert bucket.take(0.25) == pytest.approx(0.25), "a refusal spends nothing"
    assert bucket.take(0.5) == 0.0
    assert bucket.take(0.5) == pytest.approx(0.5)


def test_it_never_holds_more_than_its_capacity() -> None:
    bucket = TokenBucket.full(rate=10, capacity=3, now=0)
    assert bucket.level(1000) == 3


def test_work_above_the_capacity_waits_for_a_full_bucket_and_leaves_a_debt() -> None:
    bucket = TokenBucket.full(rate=1, capacity=10, now=0)
    assert bucket.take(0, 4) == 0.0
    assert bucket.take(0, 25) == pytest.approx(4), "it waits until the bucket is full"
    assert bucket.take(4, 25) == 0.0
    assert bucket.level(4) == -15
    assert bucket.take(4, 1) == pytest.approx(16), "the debt is paid back first"


def test_nothing_costs_nothing_even_in_debt() -> None:
    bucket = TokenBucket.full(rate=1, capacity=1, now=0)
    bucket.charge(0, 5)
    assert bucket.take(0, 0) == 0.0 and bucket.level(0) == -4


def test_a_charge_is_spent_whether_held_or_not() -> None:
    bucket = TokenBucket.full(rate=1, capacity=2, now=0)
    bucket.charge(0)
    bucket.charge(0)
    bucket.charge(0)
    assert bucket.wait(0) == pytest.approx(2)


def test_a_clock_that_steps_back_gives_nothing_and_counts_on_from_there() -> None:
    bucket = TokenBucket.full(rate=1, capacity=2, now=100)
    bucket.take(100, 2)
    assert bucket.level(50) == 0
    assert bucket.level(51) == pytest.approx(1), "not held up until the clock is back at 100"


@given(rate=rates, capacity=capacities, cost=costs, spent=costs, elapsed=steps)
def test_waiting_the_time_a_refusal_names_is_enough(
    rate: float, capacity: float, cost: float, spent: float, elapsed: float
) -> None:
    bucket = TokenBucket.full(rate, capacity, now=0)
    bucket.charge(0, spent)
    waiting = bucket.take(elapsed, cost)
    if waiting:
        assert waiting > 0
        assert bucket.take(elapsed + waiting, cost) == 0.0


@given(rate=rates, capacity=capacities, cost=costs, spent=costs)
def test_a_refusal_is_not_early(rate: float, capacity: float, cost: float, spent: float) -> None:
    """Half the wait a refusal names is not enough: the bucket does not refuse for long
    beyond what it needs."""
    bucket = TokenBucket.full(rate, capacity, now=0)
    bucket.charge(0, spent)
    waiting = bucket.wait(0, cost)
    if waiting * rate > 1e-6 * (capacity + spent):  # short by more than rounding
        assert bucket.wait(waiting / 2, cost) > 0


@given(
    rate=rates,
    capacity=capacities,
    work=st.lists(st.tuples(steps, costs), max_size=40),
)
def test_what_it_lets_through_is_bounded_by_burst_rate_and_one_overdraft(
    rate: float, capacity: float, work: list[tuple[float, float]]
) -> None:
    """Over any run, the work done is at most the capacity, plus the rate over the time
    elapsed, plus what the costliest piece of work overdrew."""
    bucket = TokenBucket.full(rate, capacity, now=0)
    now, done = 0.0, 0.0
    for step, cost in work:
        now += step
        if bucket.take(now, cost) == 0.0:
            done += cost
    overdraft = max([0.0, *(cost - capacity for _, cost in work)])
    assert done <= (capacity + rate * now + overdraft) * (1 + 1e-9)


@given(rate=rates, capacity=capacities, cost=costs, when=steps)
def test_a_refusal_changes_nothing(rate: float, capacity: float, cost: float, when: float) -> None:
    bucket = TokenBucket.full(rate, capacity, now=0)
    bucket.charge(0, capacity)
    before = bucket.level(when)
    if bucket.take(when, cost):
        assert bucket.level(when) == before


def test_buckets_keep_one_per_caller() -> None:
    buckets = Buckets(rate=1, capacity=1)
    assert buckets.of("a", 0).take(0) == 0.0
    assert buckets.of("a", 0).take(0) > 0
    assert buckets.of("b", 0).take(0) == 0.0, "another caller has a bucket of its own"


def test_buckets_drop_full_ones_first_when_holding_too_many() -> None:
    buckets = Buckets(rate=1, capacity=1, keep=3)
    buckets.of("busy", 0).take(0)
    buckets.of("idle-1", 0)
    buckets.of("idle-2", 0)
    buckets.of("new", 0)
    assert len(buckets) == 2
    assert buckets.of("busy", 0).take(0) > 0, "the bucket in use was kept"


def test_buckets_drop_the_oldest_when_none_is_full() -> None:
    buckets = Buckets(rate=1, capacity=1, keep=2)
    for caller in ("first", "second", "third"):
        buckets.of(caller, 0).take(0)
    assert len(buckets) == 2
    assert buckets.of("third", 0).take(0) > 0
    assert buckets.of("first", 0).take(0) == 0.0, "dropped, it starts full again"


def test_buckets_drop_an_eighth_of_the_oldest_at_once_when_none_is_full() -> None:
    """A flood of new callers costs one pass over the buckets per eighth, not per caller."""
    buckets = Buckets(rate=1, capacity=1, keep=64)
    for n in range(64):
        buckets.of(n, 0).take(0)
    buckets.of("new", 0)
    assert len(buckets) == 64 - 8, "room for an eighth of them, the new one in it"
    assert 8 not in buckets and 9 in buckets and "new" in buckets


def test_waiting_on_a_caller_not_held_makes_it_no_bucket() -> None:
    buckets = Buckets(rate=1, capacity=1)
    assert buckets.wait("a", 0) == 0.0 and "a" not in buckets
    buckets.of("a", 0).take(0)
    assert buckets.wait("a", 0) == 1.0
