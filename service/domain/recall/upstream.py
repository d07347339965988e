"""Recall from an upstream memory service when the local one finds nothing: within a time
budget, with a bounded number of retries (exponential backoff, full jitter), behind a
circuit breaker, and with a bound on how many recalls run at once.

Pure: the upstream is a port, and time, sleep and randomness are injected, so tests never
sleep."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from random import random as uniform
from typing import Literal

from service.domain.entries import Entry
from service.domain.memory.bounds import fitted
from service.domain.model import UpstreamHit
from service.domain.numbers import unit
from service.domain.ports import Upstream
from service.lib.breaker import BreakerSnapshot, CircuitBreaker

Outcome = Literal["answered", "failed", "circuit_open", "busy"]
"""``answered``: the upstream answered (maybe with nothing); ``failed``: no attempt within
the budget succeeded; ``circuit_open``: not asked, the breaker is open; ``busy``: not asked,
too many recalls were under way."""


class UpstreamError(Exception):
    """An upstream call failed; ``retryable`` when another attempt may succeed (a timeout, a
    refused or dropped connection, a 5xx or 429 answer), not for an answer that will not
    change (401, 403, 422, an unreadable body)."""

    def __init__(self, detail: str, *, retryable: bool) -> None:
        super().__init__(detail)
        self.retryable = retryable


@dataclass(frozen=True)
class Recalled:
    """An upstream's hit as this service returns it: ``entry`` carries the upstream's id and
    text, in the local namespace asked; ``source`` and ``namespace`` say where to cite it."""

    entry: Entry
    snippet: str
    score: float
    source: str
    """The upstream's name."""
    namespace: str
    """The namespace the upstream was asked, where ``entry.id`` lives."""


@dataclass(frozen=True)
class RecallReport:
    """What one recall did."""

    name: str
    outcome: Outcome
    hits: list[Recalled]
    attempts: int
    took_ms: float
    error: str | None = None


@dataclass(frozen=True)
class RetryPolicy:
    budget: float
    """Seconds a recall may take in all, attempts and waits between them."""
    retries: int
    """Attempts after the first, for a failure another attempt may cure."""
    backoff: float
    """Seconds of the first wait; each wait at most doubles it (full jitter)."""
    backoff_cap: float = 2.0


def backoff_delay(attempt: int, policy: RetryPolicy, random: Callable[[], float]) -> float:
    """The wait after failed attempt ``attempt`` (1-based): uniform in [0, min(cap, backoff x
    2^(attempt-1))], full jitter, so recalls failing together do not retry together."""
    ceiling = min(policy.backoff_cap, policy.backoff * 2.0 ** (attempt - 1))
    return float(random() * ceiling)


@dataclass(frozen=True)
class UpstreamSnapshot:
    """The recall's counts since the process started and its breaker, for ``/health`` and
    metrics."""

    name: str
    breaker: BreakerSnapshot
    asked: int = 0
    """Recalls that called the upstream."""
    answered: int = 0
    failed: int = 0
    circuit_open: int = 0
    """Recalls not made because the breaker was open."""
    busy: int = 0
    """Recalls not made because ``in_flight`` were under way."""
    attempts: int = 0
    """Calls made, retries included."""


class UpstreamRecall:
    def __init__(
        self,
        upstream: Upstream,
        policy: RetryPolicy,
        breaker: CircuitBreaker,
        *,
        namespaces: Mapping[str, str | None] | None = None,
        in_flight: int = 2,
        timer: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        random: Callable[[], float] | None = None,
    ) -> None:
        """``namespaces`` maps a local namespace to the upstream's (None: never ask for it);
        one not listed is asked by its own name. ``timer`` measures the budget."""
        self.upstream = upstream
        self.name = upstream.name
        self.policy = policy
        self.breaker = breaker
        self.namespaces = dict(namespaces or {})
        self._slots = threading.BoundedSemaphore(in_flight)
        self._timer = timer
        self._sleep = sleep
        self._random = random or uniform
        self._lock = threading.Lock()
        self._counts = UpstreamSnapshot(self.name, breaker.snapshot())

    def target(self, namespace: str) -> str | None:
        """The upstream namespace asked for a local one; None: not asked."""
        return self.namespaces.get(namespace, namespace)

    def ask(self, namespace: str, query: str, limit: int) -> RecallReport | None:
        """The upstream's best ``limit`` hits for ``query``, in the local ``namespace``;
        None when that namespace is never asked. Never raises: a failure is reported."""
        target = self.target(namespace)
        if target is None:
            return None
        started = self._timer()
        if not self._slots.acquire(blocking=False):
            return self._report("busy", started, error="too many recalls under way")
        try:
            admitted = self.breaker.admit()
            if admitted is None:
                snap = self.breaker.snapshot()
                return self._report("circuit_open", started, error=snap.last_error)
            tries = 1 if admitted == "trial" else 1 + self.policy.retries
            return self._attempts(namespace, target, query, limit, started, tries)
        finally:
            self._slots.release()

    def snapshot(self) -> UpstreamSnapshot:
        with self._lock:
            return replace(self._counts, breaker=self.breaker.snapshot())

    def _attempts(
        self, namespace: str, target: str, query: str, limit: int, started: float, tries: int
    ) -> RecallReport:
        deadline = started + self.policy.budget
        attempts, error = 0, "no time left in the budget"
        while (remaining := deadline - self._timer()) > 0:
            attempts += 1
            try:
                hits = self.upstream.search(target, query, limit, remaining)
                found = [_recalled(h, namespace, target, self.name) for h in hits[:limit]]
            except UpstreamError as exc:
                error, retry = str(exc) or type(exc).__name__, exc.retryable
            except Exception as exc:  # an adapter's bug must not fail the local search
                error, retry = f"{type(exc).__name__}: {exc}", False
            else:
                self.breaker.succeeded()
                return self._report("answered", started, found, attempts)
            if not retry or attempts >= tries:
                break
            delay = backoff_delay(attempts, self.policy, self._random)
            if self._timer() + delay >= deadline:
                break
            self._sleep(delay)
        self.breaker.failed(error)
        return self._report("failed", started, attempts=attempts, error=error)

    def _report(
        self,
        outcome: Outcome,
        started: float,
        hits: list[Recalled] | None = None,
        attempts: int = 0,
        error: str | None = None,
    ) -> RecallReport:
        took = round((self._timer() - started) * 1000, 2)
        with self._lock:
            c = self._counts
            self._counts = replace(
                c,
                asked=c.asked + (attempts > 0),
                answered=c.answered + (outcome == "answered"),
                failed=c.failed + (outcome == "failed"),
                circuit_open=c.circuit_open + (outcome == "circuit_open"),
                busy=c.busy + (outcome == "busy"),
                attempts=c.attempts + attempts,
            )
        return RecallReport(self.name, outcome, hits or [], attempts, took, error)


def _recalled(hit: UpstreamHit, namespace: str, target: str, source: str) -> Recalled:
    """An upstream's hit in the local ``namespace``, fitted to the bounds of an entry here
    (as it would be kept) and its score held to [0, 1]."""
    return Recalled(
        fitted(replace(hit.entry, namespace=namespace)),
        hit.snippet,
        unit(hit.score, 0.0),
        source,
        hit.entry.namespace or target,
    )
