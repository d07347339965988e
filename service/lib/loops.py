"""A loop on a daemon thread of its own, stopped from another."""

from __future__ import annotations

import threading
from collections.abc import Callable


class Loop:
    """Runs ``body(stopping)`` on a thread named ``name`` from ``start`` to ``stop``: the body
    waits on the ``stopping`` event between its rounds and returns once it is set."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, body: Callable[[threading.Event], None]) -> None:
        self._stopping.clear()
        self._thread = threading.Thread(
            target=body, args=(self._stopping,), name=self.name, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Tell the body to stop and wait until it has."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
