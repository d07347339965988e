"""Retrieves as logged, and the feedback given on them."""

from __future__ import annotations

from dataclasses import dataclass

from schemas.vocabulary import Rating


@dataclass(frozen=True)
class InteractionResult:
    id: str
    relevance: float
    score: float


@dataclass(frozen=True)
class Interaction:
    id: str
    at: float
    namespace: str
    asker: str | None
    question: str
    results: list[InteractionResult]
    strong_match: bool
    best_relevance: float
    took_ms: float
    answer_confidence: float | None = None
    """None for a retrieve logged before answers carried a confidence."""


@dataclass(frozen=True)
class Feedback:
    interaction_id: str
    at: float
    rating: Rating
    comment: str | None
    actor: str
