"""Numbers the rooms share: a value held to [0, 1], a logistic, and the finite weights of a
model file."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any


def unit(value: float, unknown: float) -> float:
    """``value`` held to [0, 1]; ``unknown`` when it is not a number."""
    return min(max(value, 0.0), 1.0) if math.isfinite(value) else unknown


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-max(min(z, 40.0), -40.0)))


def finite(value: object) -> float:
    """``value`` as a finite number; ValueError otherwise."""
    number = float(value)  # type: ignore[arg-type]
    if not math.isfinite(number):
        raise ValueError(f"{value!r} is not a finite number")
    return number


def read_weights(raw: Mapping[str, Any], known: Sequence[str]) -> dict[str, float]:
    """The ``weights`` of a model file written by ``strata calibrate``: finite numbers, each
    of a feature in ``known``; ValueError naming what is wrong."""
    weights = {str(k): finite(v) for k, v in raw["weights"].items()}
    unknown = sorted(set(weights) - set(known))
    if unknown:
        raise ValueError(f"unknown features {unknown}; known: {list(known)}")
    return weights
