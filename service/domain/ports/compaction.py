"""Giving the space of removed rows back."""

from __future__ import annotations

from typing import Protocol


class Compaction(Protocol):
    """Gives the space of removed rows back, so what was removed is in no file any more."""

    def compact(self) -> None: ...
