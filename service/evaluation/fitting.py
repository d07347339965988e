"""The two fits ``strata calibrate`` makes, as plain numerics: a weighted logistic regression
(Newton's method) and a listwise ranking model (a softmax over each question's candidates,
Adam steps). Deterministic: the same data gives the same model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]

NEWTON_STEPS = 100
LISTWISE_STEPS = 300
LISTWISE_RATE = 0.05
LISTWISE_L2 = 1e-3


def logistic(
    x: Array,
    y: Array,
    weights: Array,
    l2: float = 1e-5,
    *,
    offset: Array | None = None,
    intercept: bool = True,
) -> Array:
    """Bias and coefficients maximising the weighted log-likelihood of ``y`` over ``x``;
    ``offset``: a log-odds each row starts from (a model fitted before, say); without
    ``intercept``, the coefficients alone."""
    design = np.c_[np.ones(len(x)), x] if intercept else np.asarray(x, dtype=np.float64)
    penalised = np.r_[0.0, np.ones(x.shape[1])] if intercept else np.ones(x.shape[1])
    penalty = l2 * np.diag(penalised)
    start = np.zeros(len(x)) if offset is None else offset
    beta = np.zeros(design.shape[1])
    total = weights.sum() or 1.0
    for _ in range(NEWTON_STEPS):
        p = 1 / (1 + np.exp(-np.clip(start + design @ beta, -40, 40)))
        gradient = design.T @ (weights * (p - y)) / total + penalty @ beta
        hessian = (design.T * (weights * p * (1 - p))) @ design / total + penalty
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-10:
            break
    return beta


Group = tuple[Array, Array]
"""One question: its candidates' features (a row each) and which are relevant (0 or 1)."""


def listwise(sets: Sequence[Sequence[Group]], set_weights: Sequence[float]) -> Array:
    """Weights ``w`` maximising, over the sets (each weighing ``set_weights``, its questions
    alike), the mean log-probability that a softmax over a question's candidates of ``x @ w``
    picks a relevant one. Questions without a relevant candidate teach nothing and are
    left out."""
    used = [[(x, y) for x, y in groups if y.any()] for groups in sets]
    pairs = [(groups, w) for groups, w in zip(used, set_weights, strict=True) if groups and w > 0]
    if not pairs:
        raise ValueError("no question has a relevant candidate to learn from")
    width = pairs[0][0][0][0].shape[1]
    total = sum(w for _, w in pairs)
    beta = np.zeros(width)
    moment, second = np.zeros(width), np.zeros(width)
    for step in range(1, LISTWISE_STEPS + 1):
        gradient = LISTWISE_L2 * beta
        for groups, set_weight in pairs:
            part = np.zeros(width)
            for x, y in groups:
                scores = x @ beta
                p = np.exp(scores - scores.max())
                p /= p.sum()
                q = p * y
                part += x.T @ (p - q / q.sum())
            gradient += set_weight / total * part / len(groups)
        moment = 0.9 * moment + 0.1 * gradient
        second = 0.999 * second + 0.001 * gradient * gradient
        unbiased = moment / (1 - 0.9**step)
        beta -= LISTWISE_RATE * unbiased / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    return beta
