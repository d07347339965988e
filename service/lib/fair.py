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
would leave another a quarter of the interpreter; held to one, a half.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
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
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if threads < 1:
            raise ValueError("a pool needs a thread")
        self._threads = threads
        self.most = most if most is not None else max(1, threads - 1)
        self._clock = clock
        self._seen: dict[str, float] = {}
        """When each asker last submitted a call."""
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
            self._seen.pop(who, None)  # kept in order of the last call
            self._seen[who] = self._clock()
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
                    self._changed.wait()
                    taken = self._take()
                who, call, more = taken
                if more:  # another call may start too (a share grown, say)
                    self._changed.notify()
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

    def share(self) -> int:
        """The most calls an asker may start with: ``most`` when it asks alone, else an
        equal share of ``most`` between the askers of late, one at the least."""
        since = self._clock() - RECENT
        seen = self._seen
        while seen and seen[oldest := next(iter(seen))] < since:
            del seen[oldest]
        # Those asking now count too, though they sent their calls long ago.
        busy = self._waiting.keys() | self._running.keys()
        askers = len(seen) + sum(1 for who in busy if who not in seen)
        return max(1, self.most // max(1, askers))

    def _take(self) -> tuple[str, _Call, bool] | None:
        """The next call to run, counted as running, and whether another may start too;
        None when no asker may start one."""
        if not self._waiting:
            return None
        chosen: str | None = None
        best: tuple[int, int, int] | None = None
        share, eligible = self.share(), 0
        for who, queue in self._waiting.items():
            running = self._running.get(who, 0)
            if running >= share:
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
        self._turns[chosen] = next(self._starts)
        more = eligible > 1 or (bool(queue) and running < share)
        return chosen, call, more
