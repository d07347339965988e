"""One reference question asked through the read path, judged at every floor a sweep
weighs, from one search."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from service.domain.answers.answer import Answerer
from service.domain.model.references import Reference
from service.domain.search.usage import uncounted

FLOORS = (
    0.0,
    0.0005,
    0.001,
    0.002,
    0.003,
    0.005,
    0.0075,
    0.01,
    0.015,
    0.02,
    0.03,
    0.05,
    0.075,
    0.1,
    0.15,
    0.2,
    0.3,
)
"""The floors a sweep weighs (the in-force one is added when it is none of them)."""
FIRST = 10
"""A reference is found when an answer comes within this many of the search's results."""
RETURNED = 5
"""The entries a retrieve returns by default: those a strong match is judged on."""


@dataclass(frozen=True)
class Judged:
    """A retrieve's answer at one floor."""

    returned: tuple[str, ...]
    confidence: float


@dataclass(frozen=True)
class Asked:
    """One reference asked through the read path, nothing logged."""

    reference: Reference
    ranked: tuple[tuple[str, float], ...]
    """The search's first results (ids with their scores), best first."""
    at: Mapping[float, Judged]
    """The answer at each floor weighed."""

    def found(self, floor: float = 0.0) -> bool:
        """An answer is within the first ten results and clears ``floor``."""
        answers = set(self.reference.answers)
        return any(i in answers and s >= floor for i, s in self.ranked[:FIRST])

    def best(self) -> float:
        """The best result's score (0 when the search found nothing)."""
        return max((s for _, s in self.ranked), default=0.0)

    def rank(self) -> int | None:
        answers = set(self.reference.answers)
        return next((n for n, (i, _) in enumerate(self.ranked[:FIRST], 1) if i in answers), None)

    def answered(self, floor: float) -> bool:
        return bool(set(self.at[floor].returned) & set(self.reference.answers))

    def strong(self, floor: float, threshold: float) -> bool:
        judged = self.at[floor]
        return bool(judged.returned) and judged.confidence >= threshold


def ask(
    answerer: Answerer, reference: Reference, now: float, floors: Sequence[float] = FLOORS
) -> Asked:
    """``reference`` asked as a retrieve asks, judged at every floor of ``floors``, from one
    search; nothing is logged or counted (neither the search's time nor its model work)."""
    with uncounted():
        ranked, answers = answerer.at_floors(
            reference.question, reference.namespace, now, floors, top_n=RETURNED
        )
    return Asked(
        reference,
        tuple((i, round(s, 6)) for i, s in ranked[:FIRST]),
        {
            floor: Judged(tuple(a.result.entry.id for a in answer.entries), answer.confidence)
            for floor, answer in zip(floors, answers, strict=True)
        },
    )
