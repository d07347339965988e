"""Tier rules: what is embedded and when tier C entries expire."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from service.domain.entries import Tier

DAY = 86_400.0


@dataclass(frozen=True)
class ExpiryPolicy:
    c_ttl_days: float
    ttl_by_chain_type: Mapping[str, float]

    def expires_at(
        self, tier: Tier, timestamp: float, ttl_days: float | None, chain_type: str | None
    ) -> float | None:
        """Expiry of an entry in epoch seconds; only tier C entries expire.

        The event's own ``ttl_days`` wins, then the one configured for its chain type,
        then the default.
        """
        if tier != "C":
            return None
        if ttl_days is None:
            ttl_days = self.ttl_by_chain_type.get(chain_type or "", self.c_ttl_days)
        return timestamp + ttl_days * DAY


def is_live(expires_at: float | None, now: float) -> bool:
    return expires_at is None or expires_at > now
