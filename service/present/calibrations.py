"""Sweeps and calibrations as the wire types of ``schemas.wire.calibrations``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas import wire
from service.application.calibrations import Calibrations, Swept
from service.domain.answers.sweep import Figures
from service.domain.answers.tuning import DEPLOYMENT, Tuning
from service.domain.model.references import Fit
from service.present.search import calibration_out
from service.present.times import format_time


def sweep_out(swept: Swept) -> wire.SweepResponse:
    report = swept.report
    after = Tuning.of(swept.kept) if swept.kept is not None else swept.in_force
    return wire.SweepResponse(
        namespace=swept.namespace,
        references=report.references,
        answerable=report.answerable,
        took_ms=swept.took_ms,
        before=calibration_out(swept.in_force),
        after=calibration_out(after),
        kept=swept.kept is not None,
        reason=report.reason,
        top10=report.top10,
        held_out={name: _held(f) for name, f in report.held_out.items()},
        thresholds=[
            wire.ThresholdPoint(p.threshold, p.precision, p.recall, p.youden_j)
            for p in report.thresholds
        ],
        floors=[
            wire.FloorPoint(p.floor, p.false_empties, p.false_results, p.top10_cost)
            for p in report.floors
        ],
        outcomes=[wire.ReferenceOutcome(**outcome) for outcome in report.outcomes],
    )


def calibrations_out(found: Calibrations) -> wire.CalibrationsResponse:
    in_force = found.in_force
    return wire.CalibrationsResponse(
        namespace=found.namespace,
        in_force=calibration_out(in_force),
        fits=[fit_out(f, in_force) for f in found.fits],
        references=found.references,
    )


def fit_out(fit: Fit, in_force: Tuning | None) -> wire.FitOut:
    held: Mapping[str, Any] = fit.figures.get("held_out", {})
    return wire.FitOut(
        version=fit.version,
        threshold=fit.threshold,
        floor=fit.floor,
        fitted_at=format_time(fit.at) or "",
        actor=fit.actor,
        in_force=in_force is not None
        and in_force.scope == ("deployment" if fit.namespace == DEPLOYMENT else "namespace")
        and in_force.version == fit.version,
        held_out={name: wire.HeldOut(**figures) for name, figures in held.items()},
        references=int(fit.figures.get("references", 0)),
    )


def _held(figures: Figures) -> wire.HeldOut:
    return wire.HeldOut(figures.youden_j, figures.no_result, figures.top10_cost)
