"""Whom a call counts against, and what each limit refuses, on a clock the test moves."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from service.application.auth import OPEN, ROLES, Principal
from service.application.limits import Caller, Limits
from service.errors import TooManyRequests
from service.settings import ROLES as SETTINGS_ROLES
from service.settings import Settings
from tests.fakes import FakeClock

AGENT = Principal("agent", frozenset({"one"}), "alice-agent").at("10.0.0.7")
ADMIN = Principal("admin", None, "ops").at("10.0.0.8")


def limits(clock: FakeClock, *, keyed: bool = True, **env: str) -> Limits:
    settings = Settings.from_env({f"STRATA_{k.upper()}": v for k, v in env.items()})
    return Limits(settings.limits, keyed=keyed, clock=clock)


def refused(call: Callable[[], object]) -> TooManyRequests:
    with pytest.raises(TooManyRequests) as caught:
        call()
    return caught.value


def test_the_settings_know_every_role_of_a_key() -> None:
    assert SETTINGS_ROLES == ROLES


def test_with_keys_a_call_counts_against_its_key(clock: FakeClock) -> None:
    assert limits(clock).caller(AGENT) == Caller("key alice-agent", "agent")


def test_without_keys_addresses_count_only_when_asked(clock: FakeClock) -> None:
    local = OPEN.at("127.0.0.1")
    assert limits(clock, keyed=False).caller(local) is None
    counted = limits(clock, keyed=False, limit_addresses="on").caller(local)
    assert counted == Caller("client 127.0.0.1", "admin")


def test_the_services_own_calls_count_against_no_one(clock: FakeClock) -> None:
    assert limits(clock).caller(Principal("admin")) is None
    assert limits(clock, keyed=False, limit_addresses="on").caller(OPEN) is None


def test_requests_past_the_rate_of_the_role_are_refused_until_it_refills(
    clock: FakeClock,
) -> None:
    kept = limits(clock, requests_per_second='{"agent": 2}')
    caller = Caller("key alice-agent", "agent")
    kept.request(caller)
    kept.request(caller)
    over = refused(lambda: kept.request(caller))
    assert over.status == 429 and over.retry_after == 1
    assert over.detail.startswith("requests per second of key alice-agent's role agent: 2;")
    clock.advance(0.5)
    kept.request(caller)
    refused(lambda: kept.request(caller))


def test_a_slow_rate_says_how_long_to_wait_in_whole_seconds(clock: FakeClock) -> None:
    kept = limits(clock, requests_per_second='{"agent": 0.25}')
    caller = Caller("key alice-agent", "agent")
    kept.request(caller)
    clock.advance(1.5)
    assert refused(lambda: kept.request(caller)).retry_after == 3  # 2.5 s, rounded up


def test_a_role_left_out_keeps_its_default_and_zero_is_no_limit(clock: FakeClock) -> None:
    kept = limits(clock, requests_per_second='{"admin": 0}')
    admin, agent = Caller("key ops", "admin"), Caller("key alice-agent", "agent")
    for _ in range(1000):
        kept.request(admin)
    for _ in range(20):  # the agent's default
        kept.request(agent)
    refused(lambda: kept.request(agent))


def test_requests_in_flight_past_the_role_s_are_refused_until_one_ends(
    clock: FakeClock,
) -> None:
    kept = limits(clock, requests_in_flight='{"agent": 2}')
    caller = Caller("key alice-agent", "agent")
    with kept.in_flight(caller), kept.in_flight(caller):
        over = refused(lambda: kept.in_flight(caller).__enter__())
        assert over.detail.startswith("requests in flight of key alice-agent's role agent: 2")
        assert over.retry_after == 1
        with kept.in_flight(Caller("key bob-agent", "agent")):
            pass  # another key has places of its own
    with kept.in_flight(caller):
        pass


def test_a_place_in_flight_is_given_back_when_the_request_fails(clock: FakeClock) -> None:
    kept = limits(clock, requests_in_flight='{"agent": 1}')
    caller = Caller("key alice-agent", "agent")
    with pytest.raises(RuntimeError), kept.in_flight(caller):
        raise RuntimeError("the handler failed")
    with kept.in_flight(caller):
        pass


def test_chunks_past_the_allowance_are_refused_naming_the_write_s_need(
    clock: FakeClock,
) -> None:
    kept = limits(clock, chunks_embedded_per_minute='{"agent": 10}')
    kept.embedding(AGENT, 6)
    over = refused(lambda: kept.embedding(AGENT, 6))
    assert over.detail.startswith(
        "chunks embedded per minute of key alice-agent's role agent: 10 (this write needs 6)"
    )
    assert over.retry_after == 12  # 2 chunks short at 10 a minute
    kept.embedding(AGENT, 0)  # a write of tier E only embeds nothing
    clock.advance(12)
    kept.embedding(AGENT, 6)


def test_a_write_larger_than_the_allowance_waits_for_all_of_it(clock: FakeClock) -> None:
    kept = limits(clock, chunks_embedded_per_minute='{"agent": 60}')
    kept.embedding(AGENT, 30)
    assert refused(lambda: kept.embedding(AGENT, 100)).retry_after == 30
    clock.advance(30)
    kept.embedding(AGENT, 100)
    assert refused(lambda: kept.embedding(AGENT, 1)).retry_after == 41


def test_wrong_keys_are_held_to_the_sign_in_failures_setting(clock: FakeClock) -> None:
    """The counts themselves are ``tests/unit/test_wrong_keys.py``'s."""
    kept = limits(clock, sign_in_failures_per_minute="3")
    for n in range(3):
        kept.key_sent("10.0.0.66", f"guess-number-{n:08}", right=False)
    over = refused(lambda: kept.key_sent("10.0.0.66", "guess-number-00000003", right=False))
    assert over.detail.startswith("failed authentications per minute from client 10.0.0.66: 3;")
    unlimited = limits(clock, sign_in_failures_per_minute="0")
    for n in range(100):
        unlimited.key_sent("10.0.0.66", f"guess-number-{n:08}", right=False)
