"""What the console's charts share: their frame, ticks on an axis, lines broken where a value is
missing, and the percent scale."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Frame:
    """A chart's box, and the edges of its plot inside it, in SVG units."""

    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float


@dataclass(frozen=True)
class Tick:
    at: float
    """Where on its axis, in the chart's units."""
    label: str


def runs(points: Iterable[tuple[float, float] | None]) -> list[str]:
    """SVG ``points`` of each run of ``points`` (a None breaks the line)."""
    found: list[list[str]] = [[]]
    for point in points:
        if point is None:
            found.append([])
        else:
            found[-1].append(f"{point[0]:.1f},{point[1]:.1f}")
    return [" ".join(run) for run in found if run]


def percent_ticks(bottom: float, top: float) -> list[Tick]:
    """0 % to 100 % in quarters, from ``bottom`` up to ``top``."""
    return [Tick(bottom - (bottom - top) * k / 4, f"{25 * k}%") for k in range(5)]
