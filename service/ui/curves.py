"""A sweep's curves as geometry: shares (0 to 1) against a threshold or a floor, drawn as
inline SVG by the template, with a mark where the calibration stands."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from service.ui.svg import Frame, Tick, percent_ticks, runs

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 44, 16, 16, 40
LABELS = 6
"""About how many values the horizontal axis names."""
ZERO_SHARE = 0.08
"""On a log scale, the share of the width between 0 (the left edge) and the least value."""


@dataclass(frozen=True)
class Line:
    name: str
    points: list[str]
    """SVG ``points`` of each run of values (a missing value breaks it)."""


@dataclass(frozen=True)
class Mark:
    name: str
    x: float
    label: str


@dataclass(frozen=True)
class Plot:
    frame: Frame
    lines: list[Line]
    marks: list[Mark]
    x_ticks: list[Tick]
    y_ticks: list[Tick]


def plot(
    xs: Sequence[float],
    series: Mapping[str, Sequence[float | None]],
    marks: Mapping[str, float],
    *,
    log_x: bool = False,
) -> Plot:
    """Each series of ``series`` (a share per value of ``xs``, ascending) as lines, and a
    mark at each value of ``marks``; ``log_x``: the values spread on a log scale (floors
    span orders of magnitude; 0 goes at the left edge)."""
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM
    place = _placing(xs, log_x, LEFT, right)
    lines = [
        Line(
            name,
            runs(
                None if y is None or math.isnan(y) else (place(x), bottom - (bottom - TOP) * y)
                for x, y in zip(xs, values, strict=True)
            ),
        )
        for name, values in series.items()
    ]
    every = max(1, math.ceil(len(xs) / LABELS))
    x_ticks = [Tick(place(x), f"{x:g}") for n, x in enumerate(xs) if n % every == 0]
    y_ticks = percent_ticks(bottom, TOP)
    placed = [Mark(name, place(x), f"{x:g}") for name, x in marks.items()]
    frame = Frame(WIDTH, HEIGHT, LEFT, right, TOP, bottom)
    return Plot(frame, lines, placed, x_ticks, y_ticks)


def _placing(
    xs: Sequence[float], log_x: bool, left: float, right: float
) -> Callable[[float], float]:
    positive = [x for x in xs if x > 0]
    if log_x and positive:
        low, high = math.log10(min(positive)), math.log10(max(positive))
        span = (high - low) or 1.0
        start = left + ZERO_SHARE * (right - left) if len(positive) < len(xs) else left

        def at_log(x: float) -> float:
            if x <= 0:
                return left
            return start + (right - start) * (math.log10(x) - low) / span

        return at_log
    low, high = (min(xs), max(xs)) if xs else (0.0, 1.0)
    span = (high - low) or 1.0
    return lambda x: left + (right - left) * (x - low) / span
