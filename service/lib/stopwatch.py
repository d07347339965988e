"""How long each step of a piece of work took."""

from __future__ import annotations

from time import perf_counter


class Stopwatch:
    """Seconds between laps, summed by the name of the step each lap closes."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = perf_counter()

    def restart(self) -> None:
        """Start timing the next step from now (time since the last lap is no step's)."""
        self._last = perf_counter()

    def lap(self, step: str) -> None:
        """The time since the last lap (or restart) was spent on ``step``."""
        now = perf_counter()
        self.laps[step] = self.laps.get(step, 0.0) + now - self._last
        self._last = now
