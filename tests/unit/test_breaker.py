"""The circuit breaker: opens after failures in a row, lets one trial through after its
cooldown, closes on the trial's success and opens again on its failure."""

from __future__ import annotations

from service.lib.breaker import CircuitBreaker
from tests.fakes import CLOCK_START, FakeClock


def breaker(clock: FakeClock, failures: int = 3, cooldown: float = 30.0) -> CircuitBreaker:
    return CircuitBreaker(failures, cooldown, clock)


def test_a_closed_breaker_admits_calls_and_a_success_forgets_earlier_failures() -> None:
    b = breaker(FakeClock())
    b.failed("timeout")
    b.failed("timeout")
    b.succeeded()
    b.failed("timeout")
    b.failed("timeout")
    assert b.admit() == "call"
    snap = b.snapshot()
    assert (snap.state, snap.failures, snap.trips, snap.last_error) == ("closed", 2, 0, None)


def test_failures_in_a_row_open_it_and_calls_are_refused_until_the_cooldown_ends() -> None:
    clock = FakeClock()
    b = breaker(clock)
    for _ in range(3):
        assert b.admit() == "call"
        b.failed("503 Service Unavailable")
    snap = b.snapshot()
    assert snap.state == "open" and snap.trips == 1
    assert (snap.opened_at, snap.retry_at) == (CLOCK_START, CLOCK_START + 30)
    assert snap.last_error == "503 Service Unavailable"
    clock.advance(29.9)
    assert b.admit() is None
    assert b.admit() is None
    assert b.snapshot().rejected == 2


def test_after_the_cooldown_one_trial_goes_through_and_its_success_closes_it() -> None:
    clock = FakeClock()
    b = breaker(clock, failures=1)
    b.failed("refused")
    clock.advance(30)
    assert b.snapshot().state == "half_open"
    assert b.admit() == "trial"
    assert b.admit() is None, "one trial at a time"
    b.succeeded()
    snap = b.snapshot()
    assert (snap.state, snap.failures, snap.opened_at) == ("closed", 0, None)
    assert b.admit() == "call"


def test_a_failed_trial_opens_it_again_for_a_whole_cooldown() -> None:
    clock = FakeClock()
    b = breaker(clock, failures=2, cooldown=10)
    b.failed("a")
    b.failed("b")
    clock.advance(10)
    assert b.admit() == "trial"
    b.failed("still down")
    snap = b.snapshot()
    assert (snap.state, snap.trips, snap.opened_at) == ("open", 2, CLOCK_START + 10)
    clock.advance(9)
    assert b.admit() is None
    clock.advance(1)
    assert b.admit() == "trial"


def test_failures_while_open_do_not_move_its_reopening() -> None:
    clock = FakeClock()
    b = breaker(clock, failures=1, cooldown=10)
    b.failed("a")
    clock.advance(5)
    b.failed("a call admitted before it opened, reporting late")
    assert b.snapshot().opened_at == CLOCK_START
    assert b.snapshot().trips == 1
