"""Coordination of one process: it leads, and its jobs exclude each other by threading locks."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class LocalCoordination:
    """For the embedded service, which shares its files with no other process."""

    def __init__(self) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def lead(self) -> bool:
        return True

    @contextmanager
    def job_lock(self, job: str) -> Iterator[bool]:
        with self._guard:
            lock = self._locks.setdefault(job, threading.Lock())
        held = lock.acquire(blocking=False)
        try:
            yield held
        finally:
            if held:
                lock.release()

    def close(self) -> None:
        pass
