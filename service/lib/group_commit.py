"""Writes from concurrent callers committed together, one model call and one index update
for all of them."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

W = TypeVar("W")


@dataclass
class Pending(Generic[W]):
    """A write waiting for its group, and how it ended."""

    write: W
    done: bool = False
    error: Exception | None = None
    result: list[Any] = field(default_factory=list)
    indexed: bool = True
    """False when the write is stored but its indexing is left for later."""
    queued: float = field(default_factory=time.perf_counter)
    """When it was submitted (``perf_counter`` seconds): its wait for a turn ends when its
    group's commit starts."""


class GroupCommit(Generic[W]):
    """Whoever holds the turn takes every write waiting, in arrival order, up to the first
    that touches a key a write already taken touches (it goes in the next group) or once
    the group holds ``most_keys`` keys, and commits them with one call of ``commit``.

    ``commit`` fills each pending write's ``result``, or its ``error`` to fail it alone; if
    ``commit`` raises, every write of the group fails with that error."""

    def __init__(
        self,
        commit: Callable[[list[Pending[W]]], None],
        keys: Callable[[W], Collection[str]],
        most_keys: int,
    ) -> None:
        self._commit = commit
        self._keys = keys
        self._most_keys = most_keys
        self._turn = threading.Lock()
        """Held by the one writer committing a group."""
        self._queue: list[Pending[W]] = []
        self._queue_lock = threading.Lock()

    @property
    def waiting(self) -> int:
        """Writes queued for a turn."""
        with self._queue_lock:
            return len(self._queue)

    def submit(self, write: W) -> Pending[W]:
        """Commit ``write`` with whatever waits beside it; returns once it is committed,
        raising its error if it failed."""
        pending = Pending(write)
        with self._queue_lock:
            self._queue.append(pending)
        while not pending.done:
            with self._turn:
                if not pending.done:
                    self._run(self._take_group())
        if pending.error is not None:
            raise pending.error
        return pending

    def _take_group(self) -> list[Pending[W]]:
        with self._queue_lock:
            group: list[Pending[W]] = []
            taken: set[str] = set()
            for pending in self._queue:
                mine = set(self._keys(pending.write))
                if group and (mine & taken or len(taken) >= self._most_keys):
                    break
                group.append(pending)
                taken |= mine
            del self._queue[: len(group)]
        return group

    def _run(self, group: list[Pending[W]]) -> None:
        try:
            self._commit(group)
        except Exception as error:
            for pending in group:
                pending.error = pending.error or error
        finally:
            for pending in group:
                pending.done = True
