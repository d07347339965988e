"""A clock the test sets."""

from __future__ import annotations

from dataclasses import dataclass

CLOCK_START = 1_800_000_000.0
"""Where a ``FakeClock`` starts: 2027-01-15T08:00:00Z."""


@dataclass
class FakeClock:
    """Seconds since the epoch, as ``now`` says: set it or ``advance`` it."""

    now: float = CLOCK_START

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
