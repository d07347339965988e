"""A circuit breaker: after so many failed calls in a row it stops calling for a while, then
lets one trial call through; its success closes it, its failure opens it again.

Pure and thread-safe; time comes from the injected clock, so tests never sleep."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

State = Literal["closed", "open", "half_open"]
Admission = Literal["call", "trial"]
"""``call``: the breaker is closed; ``trial``: the one call a half-open breaker lets through."""


@dataclass(frozen=True)
class BreakerSnapshot:
    """The breaker's state and counts, for ``/health`` and for metrics."""

    state: State
    """``half_open``: the cooldown is over and a trial call is (or may be) under way."""
    failures: int
    """Failed calls in a row (reset by a success)."""
    trips: int
    """Times the breaker opened since it was made."""
    rejected: int
    """Calls refused while it was open (or while a trial was under way)."""
    opened_at: float | None = None
    """When it opened last (clock seconds), while it is open or half open."""
    retry_at: float | None = None
    """When an open breaker lets a trial call through."""
    last_error: str | None = None
    """The last failure's message, while it is not closed."""


class CircuitBreaker:
    def __init__(self, failures: int, cooldown: float, clock: Callable[[], float]) -> None:
        """Opens after ``failures`` failed calls in a row; stays open ``cooldown`` seconds."""
        if failures < 1 or cooldown < 0:
            raise ValueError("a breaker needs failures >= 1 and cooldown >= 0")
        self.threshold = failures
        self.cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._trial = False
        self._trips = 0
        self._rejected = 0
        self._error: str | None = None

    def admit(self) -> Admission | None:
        """Whether a call may go ahead now: ``call`` when closed, ``trial`` for the one call
        a breaker past its cooldown lets through, None (refused, counted) otherwise. The
        caller reports the outcome of an admitted call with ``succeeded`` or ``failed``."""
        with self._lock:
            if self._opened_at is None:
                return "call"
            if self._trial or self._clock() < self._opened_at + self.cooldown:
                self._rejected += 1
                return None
            self._trial = True
            return "trial"

    def succeeded(self) -> None:
        with self._lock:
            self._failures = 0
            self._opened_at = None
            self._trial = False
            self._error = None

    def failed(self, error: str) -> None:
        with self._lock:
            self._failures += 1
            self._error = error
            if self._trial or (self._opened_at is None and self._failures >= self.threshold):
                self._opened_at = self._clock()
                self._trips += 1
            self._trial = False

    def snapshot(self) -> BreakerSnapshot:
        with self._lock:
            opened = self._opened_at
            if opened is None:
                return BreakerSnapshot("closed", self._failures, self._trips, self._rejected)
            retry_at = opened + self.cooldown
            half_open = self._trial or self._clock() >= retry_at
            return BreakerSnapshot(
                "half_open" if half_open else "open",
                self._failures,
                self._trips,
                self._rejected,
                opened,
                retry_at,
                self._error,
            )
