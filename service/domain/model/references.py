"""Reference questions and the fits a sweep makes of them.

A reference is a question a namespace's people or agents know the answer to: the entries
that answer it, or that nothing in memory does. A sweep asks every reference through the
read path and fits, for that namespace, the ``strong_match`` threshold and the relevance
floor; each fit is a version, applied to the next requests, and can be rolled back."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

ReferenceSource = Literal["admin", "agent", "console", "feedback"]
QUESTION_ENDS = "?!.;:\u3002\uff1f\uff01 "
"""Marks a question may end with and still be the same question."""


def asked_as(question: str) -> str:
    """The form a question shares with every question of the same words: Unicode
    compatibility forms, case, spacing and the marks it ends with aside."""
    folded = " ".join(unicodedata.normalize("NFKC", question).casefold().split())
    return folded.rstrip(QUESTION_ENDS)


@dataclass(frozen=True)
class Reference:
    namespace: str
    id: str
    question: str
    answers: tuple[str, ...]
    """Ids of the namespace's entries that answer the question; empty: nothing in memory
    does, and the right answer is none."""
    source: ReferenceSource
    actor: str
    """The name of the key that recorded it."""
    at: float

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


@dataclass(frozen=True)
class Fit:
    """What a sweep fitted for a namespace (``""``: the whole deployment)."""

    namespace: str
    version: int
    """1, 2, ... within the namespace; the shipped calibration is version 0."""
    threshold: float
    """``answer_confidence`` at or above which a retrieve is a ``strong_match``."""
    floor: float
    """The relevance floor (``min_score``) of searches that name none."""
    at: float
    actor: str
    figures: Mapping[str, Any] = field(default_factory=dict)
    """The sweep's report (JSON): references asked, the curves, cross-validated figures of
    the fit and of the calibration it replaces."""
