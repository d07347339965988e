"""Time and ids, given so tests set them."""

from __future__ import annotations

from typing import Protocol


class Clock(Protocol):
    def __call__(self) -> float:
        """Seconds since the epoch."""
        ...


class IdFactory(Protocol):
    def __call__(self) -> str: ...
