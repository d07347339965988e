"""Token buckets: how much of something a caller may do now, and when it may again.

A bucket holds up to ``capacity`` tokens and gains ``rate`` a second. Work of some cost is
done when the bucket holds that many tokens, which it then loses; otherwise the bucket says
how long until it will hold them, and loses nothing. Work costing more than the capacity is
done when the bucket is full, and leaves it in debt: nothing more is done until the debt is
paid back at ``rate``. Time is whatever the caller's clock says; a clock that steps back
gives nothing, and the bucket counts on from its new reading.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from itertools import islice

SLACK = 1e-9
"""Tokens, relative to those held and the capacity, that a bucket may be short of and still
give: waiting the time it names is then always enough, despite rounding."""


def whole_seconds(waiting: float) -> int:
    """``waiting`` as ``Retry-After`` says it: whole seconds, at least 1, rounded up (once
    rounded to the microsecond, so that 12.000000000000002 s of float arithmetic is 12)."""
    return max(1, math.ceil(round(waiting, 6)))


@dataclass
class TokenBucket:
    rate: float
    """Tokens gained a second; above 0."""
    capacity: float
    """Most tokens held; above 0."""
    tokens: float
    """Held at ``updated``; below 0 while in debt."""
    updated: float
    """Clock reading ``tokens`` was last brought up to."""

    @classmethod
    def full(cls, rate: float, capacity: float, now: float) -> TokenBucket:
        return cls(rate, capacity, capacity, now)

    def level(self, now: float) -> float:
        """Tokens held at ``now``."""
        self._refill(now)
        return self.tokens

    def wait(self, now: float, cost: float = 1.0) -> float:
        """Seconds from ``now`` until work of ``cost`` could be done; 0 when it can now."""
        if cost <= 0:
            return 0.0
        needed = min(cost, self.capacity)
        held = self.level(now)
        missing = needed - held
        if missing <= SLACK * (1.0 + self.capacity + abs(held)):
            return 0.0
        return missing / self.rate

    def take(self, now: float, cost: float = 1.0) -> float:
        """Do work of ``cost`` if it can be done now: 0, and the tokens are spent. Else the
        seconds until it could be, and nothing is spent."""
        waiting = self.wait(now, cost)
        if waiting == 0.0 and cost > 0:
            self.tokens -= cost
        return waiting

    def charge(self, now: float, cost: float = 1.0) -> None:
        """Spend ``cost`` whether the bucket holds it or not (it may go into debt): for work
        that was done already, such as a failed attempt."""
        self._refill(now)
        self.tokens -= cost

    def is_full(self, now: float) -> bool:
        return self.level(now) >= self.capacity

    def _refill(self, now: float) -> None:
        if now > self.updated:
            self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        # After a step back the bucket counts on from the clock's new reading: a wall clock
        # set back an hour neither refills it nor stops it refilling for that hour.
        self.updated = now


class Buckets:
    """A bucket of one rate and capacity per caller, made full on first use. At most
    ``keep`` callers are held: past that, buckets that are full again are dropped (a full
    bucket is the same as a new one), and then the longest-held ones, an eighth of ``keep``
    at once, so that a flood of new callers costs one pass over the buckets per eighth,
    not one per caller."""

    def __init__(self, rate: float, capacity: float, *, keep: int = 65_536) -> None:
        self.rate = rate
        self.capacity = capacity
        self.keep = keep
        self._held: dict[Hashable, TokenBucket] = {}

    def of(self, caller: Hashable, now: float) -> TokenBucket:
        bucket = self._held.get(caller)
        if bucket is None:
            if len(self._held) >= self.keep:
                self._prune(now)
            bucket = self._held[caller] = TokenBucket.full(self.rate, self.capacity, now)
        return bucket

    def wait(self, caller: Hashable, now: float) -> float:
        """Seconds from ``now`` until ``caller`` could do work of cost 1; 0 for a caller not
        held (whose bucket would be full), which is not made one."""
        bucket = self._held.get(caller)
        return bucket.wait(now) if bucket is not None else 0.0

    def __contains__(self, caller: Hashable) -> bool:
        return caller in self._held

    def __len__(self) -> int:
        return len(self._held)

    def _prune(self, now: float) -> None:
        for caller in [c for c, b in self._held.items() if b.is_full(now)]:
            del self._held[caller]
        over = len(self._held) - self.keep + 1
        if over > 0:
            for caller in list(islice(self._held, over + self.keep // 8)):
                del self._held[caller]
