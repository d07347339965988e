"""Limits per caller, so that one caller's load slows its own answers (429, with
``Retry-After``) and not everyone's.

A caller is an API key, by its name, held to the limits of its role: requests a second,
requests in flight, and chunks its writes have embedded a minute. Without keys there is one
caller per client address when STRATA_LIMIT_ADDRESSES is on (with the admin role's limits),
and none otherwise. The service's own callers (jobs, commands run in process) have no
address and no limit. Failed authentications are counted apart: per client address, one
allowance for API keys refused by the REST API, ``/mcp`` and the console's sign-in alike, and
per key tried at the console's sign-in.

Where each is taken: a request and its place in flight by ``service/api/limits.py`` for the
REST API and ``/mcp``, and by the console's admission for its pages; chunks by the events use
case, before anything is written; failed authentications by ``service/api/limits.py`` and the
console's sign-in.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from service.application.auth import ROLES, Principal, Role
from service.errors import TooManyRequests
from service.lib.buckets import Buckets
from service.settings import LimitSettings

MINUTE = 60.0


@dataclass(frozen=True)
class Caller:
    """Who a limit is kept for."""

    label: str
    """``key <name>``, or ``client <address>`` without keys."""
    role: Role


class Limits:
    """Every caller's counts, on ``clock``; used from the event loop and the threads of
    the writes alike."""

    def __init__(self, settings: LimitSettings, *, keyed: bool, clock: Callable[[], float]) -> None:
        self.settings = settings
        self.keyed = keyed
        self.clock = clock
        self._lock = threading.Lock()
        self._requests = {
            role: Buckets(rate, max(1.0, rate))
            for role in ROLES
            if (rate := settings.per_second(role)) > 0
        }
        self._chunks = {
            role: Buckets(count / MINUTE, count)
            for role in ROLES
            if (count := settings.chunks_per_minute(role)) > 0
        }
        self._in_flight: dict[Caller, int] = {}
        failures = settings.sign_in_failures_per_minute
        self._failures = Buckets(failures / MINUTE, failures) if failures else None

    def caller(self, principal: Principal) -> Caller | None:
        """Whom ``principal``'s calls count against; None: no one (no limit applies)."""
        if principal.address is None:
            return None
        if self.keyed:
            return Caller(f"key {principal.name}", principal.role)
        if self.settings.limit_addresses == "on":
            return Caller(f"client {principal.address}", principal.role)
        return None

    def request(self, caller: Caller) -> None:
        """Count one request of ``caller``; TooManyRequests when over its rate."""
        buckets = self._requests.get(caller.role)
        if buckets is not None:
            limit = _number(self.settings.per_second(caller.role))
            self._take(buckets, caller, 1, f"requests per second of {_whose(caller)}: {limit}")

    @contextmanager
    def in_flight(self, caller: Caller) -> Iterator[None]:
        """Hold one of ``caller``'s places in flight while the request is served;
        TooManyRequests when it has none free."""
        limit = self.settings.in_flight(caller.role)
        with self._lock:
            held = self._in_flight.get(caller, 0)
            if limit and held >= limit:
                raise TooManyRequests(
                    f"requests in flight of {_whose(caller)}: {limit}; try again in 1 s", 1
                )
            self._in_flight[caller] = held + 1
        try:
            yield
        finally:
            with self._lock:
                left = self._in_flight.pop(caller) - 1
                if left:
                    self._in_flight[caller] = left

    def embedding(self, principal: Principal, chunks: int) -> None:
        """Count the chunks a write of ``principal`` is about to embed; TooManyRequests,
        before anything is written, when over its allowance."""
        caller = self.caller(principal)
        if caller is None or chunks <= 0 or (buckets := self._chunks.get(caller.role)) is None:
            return
        limit = self.settings.chunks_per_minute(caller.role)
        what = f"chunks embedded per minute of {_whose(caller)}: {limit}"
        self._take(buckets, caller, chunks, f"{what} (this write needs {chunks})")

    def check_sign_in(self, address: str, key: str) -> None:
        """TooManyRequests when sign-ins from ``address``, or with ``key``, failed too often
        of late; checked before the key is, so that a refused guess learns nothing."""
        self._check_failures("failed sign-ins", _sign_in_counts(address, key))

    def failed_sign_in(self, address: str, key: str) -> None:
        """Count a sign-in from ``address`` with ``key`` that failed."""
        self._charge_failures(_sign_in_counts(address, key))

    def check_key(self, address: str) -> None:
        """TooManyRequests when API keys sent from ``address`` (to the REST API, ``/mcp`` or
        the console) were refused too often of late; checked before the key is, so that a
        refused guess learns nothing."""
        self._check_failures("failed authentications", [_address_count(address)])

    def failed_key(self, address: str) -> None:
        """Count an API key sent from ``address`` that was refused."""
        self._charge_failures([_address_count(address)])

    def _check_failures(self, what: str, counts: list[tuple[tuple[str, str], str]]) -> None:
        if self._failures is None:
            return
        limit = self.settings.sign_in_failures_per_minute
        with self._lock:
            now = self.clock()
            for who, whose in counts:
                if waiting := self._failures.of(who, now).wait(now):
                    seconds = _seconds(waiting)
                    raise TooManyRequests(
                        f"{what} per minute {whose}: {limit}; try again in {seconds} s",
                        seconds,
                    )

    def _charge_failures(self, counts: list[tuple[tuple[str, str], str]]) -> None:
        if self._failures is None:
            return
        with self._lock:
            now = self.clock()
            for who, _ in counts:
                self._failures.of(who, now).charge(now)

    def _take(self, buckets: Buckets, caller: Caller, cost: int, what: str) -> None:
        with self._lock:
            now = self.clock()
            waiting = buckets.of(caller, now).take(now, cost)
        if waiting:
            seconds = _seconds(waiting)
            raise TooManyRequests(f"{what}; try again in {seconds} s", seconds)


def _number(rate: float) -> str:
    """20.0 as 20, 2.5 as 2.5."""
    return str(int(rate)) if rate.is_integer() else str(rate)


def _whose(caller: Caller) -> str:
    return f"{caller.label}'s role {caller.role}"


def _sign_in_counts(address: str, key: str) -> list[tuple[tuple[str, str], str]]:
    """The failure counts a sign-in is held to, and how its refusal names them: the key
    tried by a digest, so that no key tried is kept in memory."""
    digest = hashlib.sha256(key.encode()).hexdigest()
    return [_address_count(address), (("key", digest), "with this key")]


def _address_count(address: str) -> tuple[tuple[str, str], str]:
    """The failure count of a client address, shared by the console and the API."""
    return ("address", address), f"from client {address}"


def _seconds(waiting: float) -> int:
    """Whole seconds of ``Retry-After``: at least 1, the wait rounded up (once rounded to
    the microsecond, so that 12.000000000000002 s of float arithmetic is 12)."""
    return max(1, math.ceil(round(waiting, 6)))
