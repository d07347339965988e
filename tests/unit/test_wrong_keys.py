"""Wrong keys cost their sender: a stale key is held back on its own, an address sending new
wrong keys meets 429 for any key not yet served there, and the counts stay bounded. The
clock is the test's."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import pytest

from service.application.wrong_keys import WrongKeys
from service.errors import TooManyRequests
from tests.fakes import FakeClock

RIGHT = "the-right-key-000000"
STALE = "a-stale-key-00000000"


def refused(call: Callable[[], object]) -> TooManyRequests:
    with pytest.raises(TooManyRequests) as caught:
        call()
    return caught.value


def guess(n: int) -> str:
    return f"guess-number-{n:08}"


def spend(counts: WrongKeys, address: str, keys: int = 3) -> None:
    """Send ``keys`` new wrong keys from ``address``, each counted (within its allowance)."""
    for n in range(keys):
        counts.sent(address, guess(n), right=False)


def held_up(counts: WrongKeys, address: str) -> TooManyRequests:
    """What ``address`` is told once it has spent its allowance of three new wrong keys."""
    spend(counts, address)
    return refused(lambda: counts.sent(address, guess(3), right=False))


@pytest.fixture
def counts(clock: FakeClock) -> WrongKeys:
    """An allowance of three wrong keys a minute, on the test's clock."""
    return WrongKeys(3, clock=clock)


def test_new_wrong_keys_past_the_allowance_hold_up_their_address_only(
    counts: WrongKeys,
    clock: FakeClock,
) -> None:
    over = held_up(counts, "10.0.0.66")
    assert over.detail == (
        "failed authentications per minute from client 10.0.0.66: 3; try again in 20 s"
    )
    assert over.retry_after == 20
    counts.sent("10.0.0.7", guess(4), right=False)  # another address has its own allowance
    counts.sent("10.0.0.7", RIGHT, right=True)
    clock.advance(20)
    counts.sent("10.0.0.66", guess(5), right=False)


def test_a_right_key_not_yet_served_from_a_held_address_waits_as_a_guess_does(
    counts: WrongKeys,
) -> None:
    wrong = held_up(counts, "10.0.0.66")
    right = refused(lambda: counts.sent("10.0.0.66", RIGHT, right=True))
    assert (right.detail, right.retry_after) == (wrong.detail, wrong.retry_after), "learns nothing"


def test_a_right_key_served_from_an_address_is_never_held_by_its_failures(
    counts: WrongKeys,
) -> None:
    counts.sent("127.0.0.1", RIGHT, right=True)
    for n in range(30):
        with contextlib.suppress(TooManyRequests):
            counts.sent("127.0.0.1", guess(n), right=False)
    for _ in range(100):
        counts.sent("127.0.0.1", RIGHT, right=True)


def test_a_stale_key_holds_back_itself_and_not_its_neighbours(counts: WrongKeys) -> None:
    for _ in range(3):
        counts.sent("127.0.0.1", STALE, right=False)
    stale = refused(lambda: counts.sent("127.0.0.1", STALE, right=False))
    assert stale.detail == "failed authentications per minute with this key: 3; try again in 20 s"
    assert STALE not in stale.detail
    refused(lambda: counts.sent("10.0.0.9", STALE, right=False))  # from anywhere
    counts.sent("127.0.0.1", RIGHT, right=True)  # a key never served here before
    counts.sent("127.0.0.1", guess(1), right=False)  # the address spent one of three
    counts.sent("127.0.0.1", guess(2), right=False)


def test_a_stale_key_retried_for_an_hour_never_holds_up_its_address(clock: FakeClock) -> None:
    counts = WrongKeys(10, clock=clock)
    for _ in range(3600):
        try:
            counts.sent("127.0.0.1", STALE, right=False)
        except TooManyRequests as exc:
            assert "with this key" in exc.detail
        clock.advance(1)
    counts.sent("127.0.0.1", RIGHT, right=True)


def test_guesses_from_one_address_are_bounded_by_the_allowance_and_its_rate(
    clock: FakeClock,
) -> None:
    """A guesser learns whether a key is right only when answered 401 or served: at most
    the allowance at once and the allowance a minute, whatever it sends and however fast."""
    counts = WrongKeys(10, clock=clock)
    learnt = 0
    for n in range(24 * 60 * 60):  # a guess a second for a day, each a new key
        try:
            counts.sent("203.0.113.9", guess(n), right=False)
            learnt += 1
        except TooManyRequests:
            pass
        clock.advance(1)
    assert 14_400 <= learnt <= 10 + 10 * 24 * 60  # at most 14,410 a day


def test_nothing_is_held_when_the_limit_is_off(clock: FakeClock) -> None:
    counts = WrongKeys(0, clock=clock)
    for n in range(100):
        counts.sent("10.0.0.66", STALE, right=False)
        counts.sent("10.0.0.66", guess(n), right=False)
    counts.sent("10.0.0.66", RIGHT, right=True)
    assert counts.held() == (0, 0, 0)


def test_no_key_sent_is_kept_and_fingerprints_are_this_process_s_own(clock: FakeClock) -> None:
    one, other = WrongKeys(3, clock=clock), WrongKeys(3, clock=clock)
    assert one.fingerprint(STALE) == one.fingerprint(STALE)
    assert one.fingerprint(STALE) != other.fingerprint(STALE)
    assert STALE.encode() not in one.fingerprint(STALE)


def test_a_new_key_a_request_from_many_addresses_keeps_the_counts_bounded(
    clock: FakeClock,
) -> None:
    counts = WrongKeys(3, clock=clock, keep_addresses=64, keep_keys=64, keep_proven=8)
    for n in range(5000):
        address = f"10.{n // 65536}.{n // 256 % 256}.{n % 256}"
        for k in range(5):  # each past its address's allowance
            with contextlib.suppress(TooManyRequests):
                counts.sent(address, f"{address}-guess-{k}", right=False)
        counts.sent(f"198.51.100.{n % 200}", f"right-{n % 20}-0000000000", right=True)
    addresses, keys, proven = counts.held()
    assert addresses <= 64 and keys <= 64 and proven <= 8
    # The last address still meets 429: a flood of others did not wipe its count.
    refused(lambda: counts.sent("10.0.19.135", guess(0), right=False))


def test_a_guesser_s_own_flood_adds_nothing_once_its_address_is_held(counts: WrongKeys) -> None:
    for n in range(10_000):
        with contextlib.suppress(TooManyRequests):
            counts.sent("203.0.113.9", guess(n), right=False)
    assert counts.held() == (1, 3, 0)


def test_an_ipv6_client_is_counted_by_its_64_whatever_address_it_picks(counts: WrongKeys) -> None:
    """A host picks any address of its /64 at will: one allowance for all of them."""
    for n in range(3):  # three addresses of one /64
        counts.sent(f"2001:db8:1:2::{n + 1:x}", guess(n), right=False)
    over = refused(lambda: counts.sent("2001:db8:1:2:ffff::9", guess(3), right=False))
    assert over.detail.startswith(
        "failed authentications per minute from client 2001:db8:1:2::/64: 3;"
    )
    counts.sent("2001:db8:1:3::1", guess(4), right=False)  # the next /64 is another client
    counts.sent("::ffff:10.0.0.7", guess(5), right=False)  # an IPv4 client, mapped
    counts.sent("10.0.0.7", guess(6), right=False)
    counts.sent("10.0.0.7", guess(7), right=False)
    assert refused(lambda: counts.sent("10.0.0.7", guess(8), right=False))
