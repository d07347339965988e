"""Rebuilding the indexes from the ledger in the background, with visible progress."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from service.domain.memory import IndexRepair
from service.domain.ports import Entries
from service.errors import Conflict

log = logging.getLogger(__name__)


@dataclass
class RebuildStatus:
    state: str = "idle"
    """idle, running, done or failed."""
    done: int = 0
    total: int = 0
    started_at: float | None = None
    finished_at: float | None = None
    error: str | None = None


class Rebuilder:
    def __init__(
        self, repair: IndexRepair, entries: Entries, clock: Callable[[], float] = time.time
    ) -> None:
        self.repair = repair
        self.entries = entries
        self.clock = clock
        self.status = RebuildStatus()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> RebuildStatus:
        with self._lock:
            if self.status.state == "running":
                raise Conflict("a rebuild is already running")
            total = sum(self.entries.count().values())
            self.status = RebuildStatus("running", 0, total, self.clock())
            self._thread = threading.Thread(target=self._run, name="rebuild", daemon=True)
            self._thread.start()
            return self.status

    def _run(self) -> None:
        try:
            self.repair.rebuild(progress=self._progress)
            self.status.state = "done"
        except Exception as exc:
            log.exception("rebuild failed")
            self.status.state, self.status.error = "failed", f"{type(exc).__name__}: {exc}"
        self.status.finished_at = self.clock()

    def _progress(self, done: int) -> None:
        self.status.done = done

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)
