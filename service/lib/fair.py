"""A thread pool that takes turns between the callers it serves, so that no caller's calls
queue ahead of another's: the reads of one key sending as many as it may at once never
hold every thread, and another key's read starts as soon as it comes.

Who asks is read from ``ASKER`` when a call is submitted (the request's task sets it, and
``loop.run_in_executor`` submits from that task). A free thread takes the first waiting
call of the asker running the fewest calls, among equals the one whose turn came longest
ago (a newcomer first). An asker alone runs at most ``most`` calls at once (all threads
but one: one is always left for whoever comes); while others ask too (within the last
``RECENT`` seconds), each starts calls only up to an equal share of those threads, one at
the least. Python runs one thread's code at a time, so a caller running three searches
would leave another a quarter of the interpreter; held to one, a half. Pools sharing one
``Recent`` count the same askers, and while several ask, a caller's share is of the calls
it runs in all of them: a caller writing holds its share, and its reads wait for the write
(the walk of ``tests/e2e/test_fairness.py``: another key's search p95 2.0 to 2.8x its p95
alone, against 3.9 to 4.7x with a share in each pool). A call knows (``shared``) whether others
asked when it started: a write then embeds on one core, leaving the others to them.
"""

from __future__ import annotations

import itertools
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

RECENT = 1.0
"""Seconds an asker counts as asking after it last submitted a call: a client sending one
request after another is still there between two."""

ASKER: ContextVar[str] = ContextVar("strata_asker", default="")
"""Who the calls submitted from this context are for: a key, a client address."""


@contextmanager
def asking(who: str) -> Iterator[None]:
    """Calls submitted within are ``who``'s."""
    token = ASKER.set(who)
    try:
        yield
    finally:
        ASKER.reset(token)


class Recent:
    """The askers of late (within ``RECENT`` seconds) of the pools that share it, and the
    calls each runs in all of them: a read pool and a write pool sharing one share the
    machine between the same callers."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._seen: dict[str, float] = {}
        """When each asker last submitted a call, oldest first."""
        self._running: dict[str, int] = {}
        self._pools: weakref.WeakSet[FairExecutor] = weakref.WeakSet()
        self._lock = threading.Lock()

    def saw(self, who: str) -> None:
        with self._lock:
            self._seen.pop(who, None)
            self._seen[who] = self._clock()

    def running(self, who: str) -> int:
        """Calls of ``who`` running in the pools that share this account."""
        return self._running.get(who, 0)

    def started(self, who: str) -> None:
        with self._lock:
            self._running[who] = self._running.get(who, 0) + 1

    def ended(self, who: str, pool: FairExecutor) -> None:
        """A call of ``who`` ended in ``pool``: the other pools may start one of its calls
        that waited for it."""
        with self._lock:
            left = self._running[who] - 1
            if left:
                self._running[who] = left
            else:
                del self._running[who]
            others = [p for p in self._pools if p is not pool]
        for other in others:
            other.wake()

    def join(self, pool: FairExecutor) -> None:
        with self._lock:
            self._pools.add(pool)

    def askers(self, busy: Iterable[str] = ()) -> set[str]:
        """The askers of late, and ``busy`` (asking now, though they sent calls long ago)."""
        since = self._clock() - RECENT
        with self._lock:
            seen = self._seen
            while seen and seen[oldest := next(iter(seen))] < since:
                del seen[oldest]
            return set(seen).union(busy)


_CALL = threading.local()


def shared() -> bool:
    """Whether the call running on this thread started while other callers asked too (of
    any pool sharing its ``Recent``): work that could spread over every core had better take
    one then. False outside a fair pool's threads."""
    return bool(getattr(_CALL, "shared", False))


@dataclass
class _Call:
    order: int
    future: Future[Any]
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class FairExecutor(Executor):
    """``threads`` threads shared in turns between askers; an asker never holds more than
    ``most`` of them (all but one, by default; all when there is one)."""

    def __init__(
        self,
        threads: int,
        *,
        most: int | None = None,
        name: str = "strata-fair",
        recent: Recent | None = None,
    ) -> None:
        if threads < 1:
            raise ValueError("a pool needs a thread")
        self._threads = threads
        self.most = most if most is not None else max(1, threads - 1)
        self.recent = recent or Recent()
        self.recent.join(self)
        self._name = name
        self._waiting: dict[str, deque[_Call]] = {}
        self._running: dict[str, int] = {}
        self._turns: dict[str, int] = {}
        """When each asker with calls waiting or running last had one started."""
        self._workers: list[threading.Thread] = []
        self._order = itertools.count()
        self._starts = itertools.count()
        self._changed = threading.Condition()
        self._closed = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        with self._changed:
            if self._closed:
                raise RuntimeError("cannot schedule new calls after shutdown")
            call = _Call(next(self._order), future, fn, args, kwargs)
            who = ASKER.get()
            self._waiting.setdefault(who, deque()).append(call)
            self.recent.saw(who)
            while len(self._workers) < self._threads:
                self._start_worker()
            self._changed.notify()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._changed:
            self._closed = True
            if cancel_futures:
                for queue in self._waiting.values():
                    for call in queue:
                        call.future.cancel()
                self._waiting.clear()
            self._changed.notify_all()
        if wait:
            for worker in list(self._workers):
                if worker is not threading.current_thread():
                    worker.join()

    def waiting(self) -> dict[str, int]:
        """Calls waiting, by asker."""
        with self._changed:
            return {who: len(queue) for who, queue in self._waiting.items()}

    def _start_worker(self) -> None:
        worker = threading.Thread(
            target=self._work, name=f"{self._name}-{len(self._workers)}", daemon=True
        )
        self._workers.append(worker)
        worker.start()

    def _work(self) -> None:
        while True:
            with self._changed:
                taken = self._take()
                while taken is None:
                    if self._closed and not self._waiting:
                        return
                    # Calls held to their share look again once the askers of late may
                    # have stopped asking: none waits on an asker that has gone.
                    self._changed.wait(RECENT if self._waiting else None)
                    taken = self._take()
                who, call, more, askers = taken
                if more:  # another call may start too (a share grown, say)
                    self._changed.notify()
            _CALL.shared = askers > 1
            try:
                if call.future.set_running_or_notify_cancel():
                    try:
                        call.future.set_result(call.fn(*call.args, **call.kwargs))
                    except BaseException as exc:  # the caller's to see, as in any executor
                        call.future.set_exception(exc)
            finally:
                with self._changed:
                    self._running[who] -= 1
                    if not self._running[who]:
                        del self._running[who]
                        if who not in self._waiting:
                            del self._turns[who]
                    if self._waiting:
                        self._changed.notify()
                self.recent.ended(who, self)

    def wake(self) -> None:
        """Look again for a call that may start: another pool's call ended."""
        with self._changed:
            if self._waiting:
                self._changed.notify()

    def _askers(self) -> int:
        return len(self.recent.askers(self._waiting.keys() | self._running.keys()))

    def _take(self) -> tuple[str, _Call, bool, int] | None:
        """The next call to run, counted as running, whether another may start too, and
        how many ask; None when no asker may start one."""
        if not self._waiting:
            return None
        chosen: str | None = None
        best: tuple[int, int, int] | None = None
        # ``most`` for an asker alone, else an equal share of it, one at the least, of the
        # calls it runs in every pool sharing the account.
        askers = self._askers()
        share, eligible = max(1, self.most // max(1, askers)), 0
        for who, queue in self._waiting.items():
            running = self._running.get(who, 0)
            if (self.recent.running(who) if askers > 1 else running) >= share:
                continue
            eligible += 1
            rank = (running, self._turns.get(who, -1), queue[0].order)
            if best is None or rank < best:
                chosen, best = who, rank
        if chosen is None:
            return None
        queue = self._waiting[chosen]
        call = queue.popleft()
        if not queue:
            del self._waiting[chosen]
        running = self._running[chosen] = self._running.get(chosen, 0) + 1
        self.recent.started(chosen)
        self._turns[chosen] = next(self._starts)
        if askers > 1:
            running = self.recent.running(chosen)
        more = eligible > 1 or (bool(queue) and running < share)
        return chosen, call, more, askers
