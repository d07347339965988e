"""What kind of memory a question asks for, read from the question alone: its vector (the one
every search embeds anyway) and its words.

"Which database does the ledger use?" asks for a decision; "when did we move the logs
bucket?" asks about the log; both name the same things as the discussions around them. A
small logistic head per kind over the query's vector gives the probability that the
question is answered by that kind of entry (``IntentHead``, fitted by ``strata calibrate``
on question sets with known answers); the learned fusion weighs each candidate's kind by it
(``service.domain.search.learned``), so a decision rises for a question that asks for one and a
commit for a question about a change, and nothing moves for a question that asks neither.
A word of deciding in the question (``DECISION_CUES``) is one more input the fit weighs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from service.domain.entries import Entry

MemoryKind = Literal["decision", "log", "discussion", "fact"]
KINDS: tuple[MemoryKind, ...] = ("decision", "log", "discussion", "fact")
ASKED_KINDS: tuple[MemoryKind, ...] = ("decision", "log", "discussion")
"""The kinds the ranking weighs against what the question asks (a fact is the rest)."""

DECISION_CUES = frozenset(
    {
        "decide", "decided", "decides", "deciding", "decision", "decisions",
        "chose", "chosen", "choose", "agreed", "adr", "adrs",
    }
)  # fmt: skip
"""Words that name deciding."""
WORD = re.compile(r"[a-z]+")


def kind_of(entry: Entry) -> MemoryKind:
    """A decision is an entry recorded with type ``decision`` (whatever its tier); otherwise
    tier E is the log, tier C discussion, and tier A a durable fact. A tier A entry without
    a type is not taken for a decision: tier A holds durable facts too."""
    if entry.type == "decision":
        return "decision"
    if entry.tier == "E":
        return "log"
    if entry.tier == "C":
        return "discussion"
    return "fact"


def asks_for_decision(question: str) -> bool:
    """Whether the question names deciding (``DECISION_CUES``)."""
    return not DECISION_CUES.isdisjoint(WORD.findall(question.lower()))


@dataclass(frozen=True)
class IntentHead:
    """Per kind of ``ASKED_KINDS``, a logistic model over the query's vector: the
    probability that a question is answered by an entry of that kind."""

    bias: Mapping[str, float]
    weights: Mapping[str, tuple[float, ...]]
    """By kind, one weight per dimension of the embedding model's vectors."""

    @property
    def dimensions(self) -> int:
        return len(next(iter(self.weights.values()), ()))

    def asked(self, vector: Sequence[float] | None) -> dict[str, float]:
        """The probability of each kind, by kind; empty when there is no vector or it is
        not of the model the head was fitted with (another dimension)."""
        if vector is None or len(vector) != self.dimensions:
            return {}
        kinds, matrix, bias = self._matrix
        logits = np.clip(matrix @ np.asarray(vector, dtype=np.float64) + bias, -40.0, 40.0)
        return dict(zip(kinds, (1 / (1 + np.exp(-logits))).tolist(), strict=True))

    @cached_property
    def _matrix(self) -> tuple[list[str], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        kinds = list(self.weights)
        matrix = np.array([self.weights[kind] for kind in kinds], dtype=np.float64)
        return kinds, matrix, np.array([self.bias.get(kind, 0.0) for kind in kinds])

    def to_dict(self) -> dict[str, Any]:
        return {
            "bias": dict(self.bias),
            "weights": {kind: list(weights) for kind, weights in self.weights.items()},
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> IntentHead:
        """The head of a model file; ValueError naming what is wrong."""
        weights = {str(k): tuple(float(x) for x in v) for k, v in raw["weights"].items()}
        bias = {str(k): float(v) for k, v in raw["bias"].items()}
        unknown = sorted((set(weights) | set(bias)) - set(ASKED_KINDS))
        if unknown:
            raise ValueError(f"intent: unknown kinds {unknown}; known: {list(ASKED_KINDS)}")
        if len({len(w) for w in weights.values()}) > 1:
            raise ValueError("intent: every kind needs one weight per dimension")
        numbers = [*bias.values(), *(x for w in weights.values() for x in w)]
        if not all(math.isfinite(x) for x in numbers):
            raise ValueError("intent: weights must be finite numbers")
        return cls(bias, weights)


def kind_features(entry: Entry, asked: Mapping[str, float], cued: bool) -> dict[str, float]:
    """What the ranking knows of a candidate's kind against what the question asks: an
    indicator per kind of ``ASKED_KINDS``, the same times the probability the question asks
    for it (``asked``; 0 when unknown), and a decision's indicator when the question names
    deciding."""
    kind = kind_of(entry)
    found: dict[str, float] = {}
    for name in ASKED_KINDS:
        found[name] = float(kind == name)
        found[f"{name}_asked"] = found[name] * asked.get(name, 0.0)
    found["decision_cued"] = found["decision"] * float(cued)
    return found


KIND_FEATURES = (
    "decision",
    "log",
    "discussion",
    "decision_asked",
    "log_asked",
    "discussion_asked",
    "decision_cued",
)
"""The names ``kind_features`` gives."""
