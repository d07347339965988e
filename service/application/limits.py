"""Limits per caller, so that one caller's load slows its own answers (429, with
``Retry-After``) and not everyone's.

A caller is an API key, by its name, held to the limits of its role: requests a second,
requests in flight, and chunks its writes have embedded a minute. Without keys there is one
caller per client address when STRATA_LIMIT_ADDRESSES is on (with the admin role's limits),
and none otherwise. The service's own callers (jobs, commands run in process) have no
address and no limit. Failed authentications are counted apart, per wrong key and per
client address, for the REST API, ``/mcp`` and the console's sign-in alike
(``service/application/wrong_keys.py``).

Where each is taken: a request and its place in flight by ``service/edge/limits.py`` for the
REST API and ``/mcp``, and by the console's admission for its pages; chunks by the events use
case (with a write's tier E text, by its size), before anything is written; failed
authentications by ``service/edge/limits.py`` and the console's sign-in.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from service.application.auth import ROLES, Principal, Role
from service.application.wrong_keys import WrongKeys
from service.errors import PayloadTooLarge, TooManyRequests
from service.lib.buckets import Buckets, whole_seconds
from service.net.addresses import client_of
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
        self._wrong_keys = WrongKeys(settings.sign_in_failures_per_minute, clock=clock)

    def caller(self, principal: Principal) -> Caller | None:
        """Whom ``principal``'s calls count against; None: no one (no limit applies)."""
        if principal.address is None:
            return None
        if self.keyed:
            return Caller(f"key {principal.name}", principal.role)
        if self.settings.limit_addresses == "on":
            return Caller(f"client {client_of(principal.address)}", principal.role)
        return None

    def asker(self, principal: Principal) -> str:
        """Whose turn ``principal``'s reads and writes take in the pools
        (``service/lib/fair.py``): its caller's, else its address's."""
        caller = self.caller(principal)
        return (
            caller.label if caller is not None else f"client {client_of(principal.address or '')}"
        )

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

    def embedding(self, principal: Principal, chunks: float) -> None:
        """Count the chunks a write of ``principal`` is about to embed (and its tier E text,
        in chunks too: ``events.write_cost``); before anything is written, PayloadTooLarge
        when more than one write may take, TooManyRequests when over its allowance."""
        caller = self.caller(principal)
        if caller is None or chunks <= 0:
            return
        most = self.settings.chunks_per_write(caller.role)
        if most and chunks > most:
            raise PayloadTooLarge(
                f"chunks embedded per write of {_whose(caller)}: {most} (this write needs "
                f"{_chunks(chunks)}); send it in smaller batches"
            )
        if (buckets := self._chunks.get(caller.role)) is None:
            return
        limit = self.settings.chunks_per_minute(caller.role)
        what = f"chunks embedded per minute of {_whose(caller)}: {limit}"
        self._take(buckets, caller, chunks, f"{what} (this write needs {_chunks(chunks)})")

    def key_sent(self, address: str, key: str, *, right: bool) -> None:
        """Hold a request from ``address`` that sent ``key`` (to the REST API, ``/mcp`` or
        the console), found ``right`` or not, to the failed authentications of late:
        TooManyRequests when it must wait (``service/application/wrong_keys.py``)."""
        self._wrong_keys.sent(address, key, right=right)

    def _take(self, buckets: Buckets, caller: Caller, cost: float, what: str) -> None:
        with self._lock:
            now = self.clock()
            waiting = buckets.of(caller, now).take(now, cost)
        if waiting:
            seconds = whole_seconds(waiting)
            raise TooManyRequests(f"{what}; try again in {seconds} s", seconds)


def _number(rate: float) -> str:
    """20.0 as 20, 2.5 as 2.5."""
    return str(int(rate)) if rate.is_integer() else str(rate)


def _chunks(chunks: float) -> str:
    """2.0 as 2, a part of a chunk to one decimal, rounded up (0.01 as 0.1)."""
    whole = float(chunks).is_integer()
    return str(int(chunks)) if whole else f"{math.ceil(chunks * 10) / 10:.1f}"


def _whose(caller: Caller) -> str:
    return f"{caller.label}'s role {caller.role}"
