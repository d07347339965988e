"""The intent head, fitted on question sets with known answers (``Workbench.candidates``):
for each kind a question may ask for, a logistic regression over the query's vector of
"an entry of that kind answers it" (``service.domain.search.intent``).

The ranking model is fitted on what the head says of questions it has not seen: each
question's probabilities come from a head fitted without its fold (``cross_fitted``; a fold
is a namespace where a set has several, else every fourth question), so the ranking does not
learn to trust a head that has memorised its own training questions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from service.domain.search.intent import ASKED_KINDS, IntentHead
from service.evaluation.fitting import logistic
from service.evaluation.workbench import Candidates

L2 = 3e-4
"""The heads' ridge penalty: at 3e-4 a head fitted without one adr-dev namespace told its
decision questions from its log questions with AUC 0.96 on that namespace."""
ALIKE = 4.0
"""The log-odds of a kind that answers every question of the training sets (minus: none)."""
FOLDS = 4
"""Folds of a set with fewer than three namespaces."""


def asked_kinds(found: Candidates) -> dict[str, float]:
    """Which kinds answer a question: 1 for each kind of its relevant candidates."""
    kinds = {kind for kind, relevant in zip(found.kinds, found.relevant, strict=True) if relevant}
    return {kind: float(kind in kinds) for kind in ASKED_KINDS}


def fit_head(sets: Mapping[str, Sequence[Candidates]]) -> IntentHead:
    """One head per kind over the questions with a relevant candidate, every set weighing
    alike."""
    rows = [(name, c) for name, found in sets.items() for c in found if any(c.relevant)]
    if not rows:
        raise ValueError("no question has a relevant candidate to learn from")
    x = np.array([c.vector for _, c in rows], dtype=float)
    counts = {name: sum(1 for n, _ in rows if n == name) for name in sets}
    weights = np.array([len(rows) / (len(counts) * counts[name]) for name, _ in rows])
    bias: dict[str, float] = {}
    coefficients: dict[str, tuple[float, ...]] = {}
    for kind in ASKED_KINDS:
        y = np.array([asked_kinds(c)[kind] for _, c in rows])
        if y.min() == y.max():
            # Every question alike: nothing to learn from the vectors, only the rate.
            beta = np.r_[ALIKE if y[0] else -ALIKE, np.zeros(x.shape[1])]
        else:
            beta = logistic(x, y, weights, l2=L2)
        bias[kind] = round(float(beta[0]), 4)
        coefficients[kind] = tuple(round(float(w), 4) for w in beta[1:])
    return IntentHead(bias, coefficients)


def folds(found: Sequence[Candidates]) -> list[str]:
    """Each question's fold: its namespace where the set has three or more, else its
    position modulo ``FOLDS``."""
    if len({c.group for c in found}) >= 3:
        return [c.group for c in found]
    return [str(n % FOLDS) for n in range(len(found))]


def cross_fitted(sets: Mapping[str, Sequence[Candidates]]) -> dict[str, list[dict[str, float]]]:
    """By set, each question's probabilities of each kind, from a head fitted on every
    fold but its own."""
    fold_of = {name: folds(found) for name, found in sets.items()}
    asked: dict[str, list[dict[str, float]]] = {name: [{}] * len(f) for name, f in sets.items()}
    for name, found in sets.items():
        for fold in sorted(set(fold_of[name])):
            training = {
                other: [
                    c
                    for c, f in zip(rest, fold_of[other], strict=True)
                    if other != name or f != fold
                ]
                for other, rest in sets.items()
            }
            head = fit_head(training)
            for n, (c, f) in enumerate(zip(found, fold_of[name], strict=True)):
                if f == fold:
                    asked[name][n] = head.asked(c.vector)
    return asked
