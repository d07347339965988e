"""A namespace's calibration learned from its reference questions: ``/v1/admin/sweep`` and
``/v1/admin/calibrations``."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

from schemas.wire.fields import Namespace
from schemas.wire.search import CalibrationUsed


class SweepRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    namespace: Namespace | None = None
    deployment: bool = False
    """Sweep every namespace's references together and fit the deployment's calibration,
    which serves each namespace without a fit of its own (a key of every namespace; no
    ``namespace``)."""


class ThresholdPoint(Struct):
    """``strong_match`` at one threshold, over the references as the calibration in force
    asked them."""

    threshold: float
    precision: float | None
    """Of the strong matches, the share with an answer among the entries returned; null
    with none."""
    recall: float | None
    """Of the references answered among the entries returned, the share called strong."""
    youden_j: float | None


class FloorPoint(Struct):
    """The relevance floor's two errors at one floor."""

    floor: float
    false_empties: float | None
    """Of the references memory answers, the share left with no answer returned."""
    false_results: float | None
    """Of the references nothing answers, the share still given entries."""
    top10_cost: float | None
    """Of the references answered within the first ten, the share the floor cuts."""


class HeldOut(Struct):
    """A calibration judged on the references each fold left out, pooled."""

    youden_j: float | None
    no_result: float | None
    """Of the references nothing answers, the share given no entry."""
    top10_cost: float | None


class ReferenceOutcome(Struct, kw_only=True):
    id: str
    question: str
    answerable: bool
    rank: int | None
    """Where the first answer came among the entries the search ranked (1: first); null
    when it was not among the first ten, or when nothing answers."""
    answer_confidence: float
    strong_match: bool
    """As the calibration in force judged it."""


class SweepResponse(Struct, kw_only=True):
    namespace: str
    """Empty for the deployment's sweep."""
    references: int
    answerable: int
    """References that name the entries answering them; the others say nothing does."""
    took_ms: float
    before: CalibrationUsed
    after: CalibrationUsed
    """What answers from now on: ``before`` when the sweep kept nothing."""
    kept: bool
    """The sweep kept a new fit and applied it."""
    reason: str
    """Why it kept the fit, or what was in force."""
    top10: float | None
    """Of the answerable references, the share answered within the first ten."""
    held_out: dict[str, HeldOut]
    """``in_force`` and ``fitted``, cross-validated over the references; empty when there
    were too few to fit."""
    thresholds: list[ThresholdPoint]
    floors: list[FloorPoint]
    outcomes: list[ReferenceOutcome]


class FitOut(Struct, kw_only=True):
    version: int
    threshold: float
    floor: float
    fitted_at: str
    actor: str
    in_force: bool
    held_out: dict[str, HeldOut]
    references: int


class CalibrationChange(Struct, kw_only=True):
    """A fit a sweep kept, with the calibration it replaced."""

    fit: FitOut
    replaced: CalibrationUsed


class CalibrationsResponse(Struct, kw_only=True):
    namespace: str
    """Empty for the deployment's calibration."""
    in_force: CalibrationUsed
    fits: list[FitOut]
    """Newest first."""
    references: int


class RollbackRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    version: Annotated[int, Meta(ge=0, le=2**31 - 1)]
    """The fit to apply again; 0: none of its own (a namespace then takes the deployment's
    fit, if any, else the shipped calibration)."""
    namespace: Namespace | None = None
    deployment: bool = False
    """Roll back the deployment's calibration (a key of every namespace; no ``namespace``)."""
