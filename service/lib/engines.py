"""What became of each engine the service calls, as its calls found it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

State = Literal["ok", "unavailable", "off"]


@dataclass(frozen=True)
class EngineState:
    state: State
    """``off``: not configured, or not installed, and not wanted by default."""
    since: float | None = None
    """When it was first found unavailable, with no answer since (Unix seconds)."""
    error: str | None = None
    """The last failure, or why it is off."""


class Engines:
    """Unavailable since the first failure that no answer followed; thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._down: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def failed(self, engine: str, error: str) -> None:
        with self._lock:
            since = self._down.get(engine, (self._clock(), ""))[0]
            self._down[engine] = (since, error)

    def answered(self, engine: str) -> None:
        if engine in self._down:
            with self._lock:
                self._down.pop(engine, None)

    def state(self, engine: str) -> EngineState:
        with self._lock:
            down = self._down.get(engine)
        return EngineState("ok") if down is None else EngineState("unavailable", *down)
