"""A checkpoint kept in memory."""

from __future__ import annotations


class FakeCheckpoint:
    def __init__(self, seq: int | None = None) -> None:
        self.seq = seq
        self.saves = 0

    def load(self) -> int | None:
        return self.seq

    def save(self, seq: int) -> None:
        self.seq = seq
        self.saves += 1
