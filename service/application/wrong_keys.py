"""Wrong API keys cost their sender, not its neighbours.

A request that sends a key, to the REST API, ``/mcp`` or the console, has its key checked
first (comparing it with the service's keys is cheap), and is then held to the failures of
late (STRATA_SIGN_IN_FAILURES_PER_MINUTE, the allowance of each count):

- of its key, by a fingerprint: a wrong key sent again and again (an agent left with a
  stale key) meets 429 once its own allowance is spent, from any address;
- of its client address, which counts wrong keys it has sent that no count held yet: a
  wrong key sent again is charged to its own count only, so one stale key never spends the
  allowance of the agents beside it. Past the address's allowance, its requests meet 429
  whatever key they send, right or wrong, so that a guess learns nothing; except a right
  key already served from that address, which is served on.

So a guesser learns whether a key is right only while its address has allowance left, and
each key it learns that of is one it had never sent before: one of the allowance, plus the
allowance a minute, from each address (with ten, 14,410 a day). Sending a key again tells it
nothing new, and a key is proven at an address only by being right there.

Memory is bounded: each count, and the keys proven, keep at most their ``keep``, dropping
counts that are whole again first. A guesser sending a new key each time adds one count of
a key per guess its address's allowance lets through, and then meets 429 on the address,
adding nothing. Dropping a count of a key errs on the guesser's side of nothing: sent again,
the key is charged to its address anew.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable

from service.errors import TooManyRequests
from service.lib.buckets import Buckets, whole_seconds
from service.net.addresses import client_of

MINUTE = 60.0
KEEP_ADDRESSES = 65_536
KEEP_KEYS = 16_384
KEEP_PROVEN = 16_384


class WrongKeys:
    """The failure counts of keys and of addresses, on ``clock``; used from the event loop
    and threads alike. ``per_minute`` 0: no limit."""

    def __init__(
        self,
        per_minute: int,
        *,
        clock: Callable[[], float],
        keep_addresses: int = KEEP_ADDRESSES,
        keep_keys: int = KEEP_KEYS,
        keep_proven: int = KEEP_PROVEN,
    ) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self.keep_proven = keep_proven
        self._secret = secrets.token_bytes(16)
        self._lock = threading.Lock()
        rate = per_minute / MINUTE
        self._addresses = Buckets(rate, per_minute, keep=keep_addresses)
        self._keys = Buckets(rate, per_minute, keep=keep_keys)
        self._proven: OrderedDict[tuple[str, bytes], None] = OrderedDict()

    def sent(self, address: str, key: str, *, right: bool) -> None:
        """Hold a request from ``address`` that sent ``key``, found ``right`` or not, to the
        failures of late: TooManyRequests when it must wait; otherwise a wrong key is
        counted (and answered 401 by the caller). Called once the key has been checked,
        before anything answered depends on that check."""
        if not self.per_minute:
            return
        fingerprint = self.fingerprint(key)
        address = client_of(address)
        proven = (address, fingerprint)
        with self._lock:
            now = self.clock()
            if right and proven in self._proven:
                self._proven.move_to_end(proven)
                return
            # The same answer for a right key and a wrong one: the guess learns nothing.
            self._refuse(self._addresses.wait(address, now), f"from client {address}")
            if right:
                self._prove(proven)
                return
            self._refuse(self._keys.wait(fingerprint, now), "with this key")
            if fingerprint not in self._keys:  # a key the address had not sent
                self._addresses.of(address, now).charge(now)
            self._keys.of(fingerprint, now).charge(now)

    def fingerprint(self, key: str) -> bytes:
        """``key`` by a digest keyed with this process's secret: no key sent is kept, nor
        anything that would find a short one again."""
        return hashlib.blake2b(key.encode(), key=self._secret, digest_size=16).digest()

    def held(self) -> tuple[int, int, int]:
        """How many counts of addresses and of keys, and keys proven, are held now."""
        with self._lock:
            return len(self._addresses), len(self._keys), len(self._proven)

    def _prove(self, proven: tuple[str, bytes]) -> None:
        self._proven[proven] = None
        while len(self._proven) > self.keep_proven:
            self._proven.popitem(last=False)

    def _refuse(self, waiting: float, whose: str) -> None:
        if waiting:
            seconds = whole_seconds(waiting)
            raise TooManyRequests(
                f"failed authentications per minute {whose}: {self.per_minute}; "
                f"try again in {seconds} s",
                seconds,
            )
