"""The lines of an export file as an import reads them, in memory bounded by their size.

A line is read up to ``MAX_LINE_BYTES``: one longer is skipped a block at a time, never
held whole, and is a bad line. The bad lines of a file are remembered as one bit each (by
their place among the lines that are not blank), with the reasons of the first ``SHOWN``
only: what an import holds of them does not grow with their reasons, however many.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

MAX_LINE_BYTES = 32 * 1024 * 1024
"""Longest line an import reads (its newline aside): an entry of the longest text, its
context and its chunks with their vectors takes some 20 MB at most."""
SKIP_BYTES = 1024 * 1024
"""Bytes of an over-long line read at a time while it is skipped."""
SHOWN = 100
"""Bad lines named, with their reasons, in a refusal or in the response, at most."""
TOO_LONG = f"longer than {MAX_LINE_BYTES} bytes"


@dataclass(slots=True)
class Line:
    place: int
    """Its place among the lines that are not blank, from 0."""
    number: int
    """Its number in the file, from 1."""
    raw: bytes | None
    """None for a line longer than the bound (its bytes were skipped)."""


def read_lines(path: Path, limit: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """The file's lines that are not blank, in order, each at most ``limit`` bytes."""
    place = number = 0
    with path.open("rb") as fh:
        readline = fh.readline
        while raw := readline(limit + 1):
            number += 1
            if len(raw) > limit and not raw.endswith(b"\n"):
                while (rest := readline(SKIP_BYTES)) and not rest.endswith(b"\n"):
                    pass
                yield Line(place, number, None)
            elif raw.isspace():
                continue
            else:
                yield Line(place, number, raw)
            place += 1


@dataclass
class BadLines:
    """The bad lines of a file, noted in the order read: every one counted and known by its
    place, the first ``SHOWN`` with their numbers and reasons."""

    count: int = 0
    shown: list[tuple[int, str]] = field(default_factory=list)
    """(line number, reason), in order."""
    _places: bytearray = field(default_factory=bytearray)

    def add(self, line: Line, reason: str) -> None:
        self.count += 1
        if len(self.shown) < SHOWN:
            self.shown.append((line.number, reason))
        byte = line.place >> 3
        if byte >= len(self._places):
            self._places.extend(bytes(byte + 1 - len(self._places)))
        self._places[byte] |= 1 << (line.place & 7)

    def __contains__(self, line: Line) -> bool:
        byte = line.place >> 3
        return byte < len(self._places) and bool(self._places[byte] >> (line.place & 7) & 1)

    def __bool__(self) -> bool:
        return self.count > 0
