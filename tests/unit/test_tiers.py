"""When entries expire."""

from __future__ import annotations

import pytest

from service.domain.aging.tiers import DAY, ExpiryPolicy, is_live
from service.domain.entries import Tier
from tests.settings import expiry_policy

T0 = 1_700_000_000.0


@pytest.mark.parametrize("tier", ["A", "E"])
def test_tiers_a_and_e_never_expire_whatever_is_configured(tier: Tier) -> None:
    policy = ExpiryPolicy(c_ttl_days=1, ttl_by_chain_type={"standup": 2})
    assert policy.expires_at(tier, T0, None, None) is None
    assert policy.expires_at(tier, T0, 3.0, "standup") is None


def test_tier_c_lives_seven_days_by_default() -> None:
    assert expiry_policy().expires_at("C", T0, None, None) == T0 + 7 * DAY


def test_tier_c_default_is_configurable() -> None:
    assert expiry_policy(c_ttl_days=0.5).expires_at("C", T0, None, None) == T0 + 0.5 * DAY


def test_chain_type_lifetime_applies_to_its_chain_only() -> None:
    policy = expiry_policy(ttl_by_chain_type={"standup": 2})
    assert policy.expires_at("C", T0, None, "standup") == T0 + 2 * DAY
    assert policy.expires_at("C", T0, None, "planning") == T0 + 7 * DAY
    assert policy.expires_at("C", T0, None, None) == T0 + 7 * DAY


def test_event_ttl_wins_over_chain_type_and_default() -> None:
    policy = ExpiryPolicy(c_ttl_days=7, ttl_by_chain_type={"standup": 2})
    assert policy.expires_at("C", T0, 30.0, "standup") == T0 + 30 * DAY
    assert policy.expires_at("C", T0, 1.5, None) == T0 + 1.5 * DAY


def test_expiry_counts_from_the_event_timestamp() -> None:
    policy = expiry_policy()
    at_t0 = policy.expires_at("C", T0, None, None)
    assert at_t0 is not None
    assert policy.expires_at("C", T0 + 100, None, None) == at_t0 + 100


def test_entry_is_live_until_its_expiry_instant() -> None:
    assert is_live(None, T0)
    assert is_live(T0 + 1, T0)
    assert not is_live(T0, T0)
    assert not is_live(T0 - 1, T0)
