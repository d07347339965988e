"""The report chart's geometry: questions per day as bars, the strong-match rate as a line.

Computed here, drawn as inline SVG by the template: no script and no chart library.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from service.ui.svg import Frame, Tick, percent_ticks, runs

WIDTH, HEIGHT = 720, 240
LEFT, RIGHT, TOP, BOTTOM = 40, 48, 16, 36
BAR_SHARE = 0.6
"""Share of a day's slot its bar takes."""
MOST_TICKS = 5
"""Most steps on the questions scale; a scale's top (1, 2 or 5 x 10^k) above it is a
multiple of it, so every tick is a whole number of questions."""


@dataclass(frozen=True)
class Day:
    day: str
    """YYYY-MM-DD."""
    questions: int
    strong_rate: float | None
    """None when no question was asked."""


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    day: Day


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    day: Day


@dataclass(frozen=True)
class Chart:
    frame: Frame
    bars: list[Bar]
    points: list[Point]
    lines: list[str]
    """SVG ``points`` of each run of days with a rate (a day without questions breaks it)."""
    question_ticks: list[Tick]
    rate_ticks: list[Tick]
    day_ticks: list[Tick]
    """The days named under the bars."""


def nice_ceiling(value: int) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... at or above ``value`` (at least 1)."""
    if value <= 1:
        return 1
    power = int(10 ** math.floor(math.log10(value)))
    for step in (1, 2, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power


def chart(days: Sequence[Day]) -> Chart:
    """The geometry of ``days`` (oldest first) in a WIDTH x HEIGHT box."""
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    bottom = TOP + plot_h
    top_count = nice_ceiling(max((d.questions for d in days), default=0))
    slot = plot_w / max(len(days), 1)
    bars: list[Bar] = []
    points: list[Point | None] = []
    for n, day in enumerate(days):
        middle = LEFT + slot * (n + 0.5)
        height = plot_h * day.questions / top_count
        width = slot * BAR_SHARE
        bars.append(Bar(middle - width / 2, bottom - height, width, height, day))
        rate = day.strong_rate
        points.append(None if rate is None else Point(middle, bottom - plot_h * rate, day))
    steps = top_count if top_count <= MOST_TICKS else MOST_TICKS  # whole numbers: see nice_ceiling
    question_ticks = [
        Tick(bottom - plot_h * k / steps, str(top_count * k // steps)) for k in range(steps + 1)
    ]
    every = max(1, math.ceil(len(days) / 6))
    day_ticks = [
        Tick(LEFT + slot * (n + 0.5), day.day[5:])
        for n, day in enumerate(days)
        if (len(days) - 1 - n) % every == 0
    ]
    return Chart(
        Frame(WIDTH, HEIGHT, LEFT, WIDTH - RIGHT, TOP, bottom),
        bars,
        [p for p in points if p is not None],
        runs(None if p is None else (p.x, p.y) for p in points),
        question_ticks,
        percent_ticks(bottom, TOP),
        day_ticks,
    )
