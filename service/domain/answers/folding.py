"""Near-repeats folded into one: entries saying the same thing in (almost) the same words,
whatever their tier or speaker, shown once, the best ranked standing for the others."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from service.domain.entries import folded_case
from service.domain.text import READ_CHARS

NEAR = 0.8
"""Share of words (Jaccard) from which two texts are one: "Deploys go out on Tuesdays."
and "Deploys go out on Tuesdays, always." are; rewordings with new facts are not."""
_WORD = re.compile(r"\w+")

T = TypeVar("T")


@dataclass(frozen=True)
class Folded(Generic[T]):
    kept: T
    repeats: list[T] = field(default_factory=list)
    """The near-repeats it stands for, in the order given."""


def fold(items: Sequence[T], text: Callable[[T], str], near: float = NEAR) -> list[Folded[T]]:
    """``items`` (best first) with each near-repeat of an earlier one folded into it: two
    texts are compared by the words of their first ``READ_CHARS`` characters, as a search
    weighs them."""
    kept: list[tuple[frozenset[str], Folded[T]]] = []
    for item in items:
        words = frozenset(_WORD.findall(folded_case(text(item)[:READ_CHARS])))
        home = next((f for w, f in kept if similar(w, words, near)), None)
        if home is None:
            kept.append((words, Folded(item)))
        else:
            home.repeats.append(item)
    return [f for _, f in kept]


def similar(a: frozenset[str], b: frozenset[str], near: float = NEAR) -> bool:
    """The word sets share at least ``near`` of their union (two empty ones are alike)."""
    small, large = sorted((len(a), len(b)))
    if small < near * large:
        return False  # they share at most the smaller set, their union is at least the larger
    union = len(a | b)
    return union == 0 or len(a & b) / union >= near
