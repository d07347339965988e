"""A namespace's calibration learned from its reference questions: the sweep, the fits it
kept, and rolling one back."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from service.application.auth import Principal
from service.domain.answers.answer import Answerer
from service.domain.answers.sweep import FLOORS, Asked, SweepReport, ask, fit_sweep
from service.domain.answers.tuning import Tuning
from service.domain.model.references import Fit
from service.domain.ports.references import Fits, References
from service.errors import Conflict, NotFound

SCHEDULE = Principal("admin", name="schedule")
"""Who sweeps on the schedule."""
MOST_REFERENCES = 1000
"""The most references one sweep asks: the first recorded, in order."""


@dataclass(frozen=True)
class Swept:
    namespace: str
    report: SweepReport
    in_force: Tuning
    """What answered before the sweep."""
    kept: Fit | None
    """The fit the sweep kept and applied; None: what was in force stays."""
    took_ms: float


@dataclass(frozen=True)
class Calibrations:
    namespace: str
    in_force: Tuning
    fits: list[Fit]
    """Newest first."""
    references: int


class CalibrationUseCases:
    def __init__(
        self,
        answerer: Answerer,
        references: References,
        fits: Fits,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.answerer = answerer
        self.references = references
        self.fits = fits
        self.clock = clock
        self._sweeping = threading.Lock()
        self._swept_at: dict[str, float] = {}
        """When each namespace was last swept here."""

    def sweep(self, principal: Principal, namespace: str | None) -> Swept:
        """Ask every reference question of the namespace through the read path, as agents
        ask (nothing logged, nothing counted), and keep the fit the cross-validation
        supports; Conflict while another sweep runs here."""
        principal.require_admin()
        name = principal.namespace(namespace)
        if not self._sweeping.acquire(blocking=False):
            raise Conflict("a sweep is under way; try again when it has finished")
        try:
            return self._sweep(principal, name)
        finally:
            self._sweeping.release()

    def sweep_due(self, after: int) -> dict[str, Any]:
        """Sweep each namespace given at least ``after`` reference questions since its last
        sweep (here, or its fit in force); the scheduled job."""
        swept, kept = [], []
        for namespace in self.references.reference_namespaces():
            fit = self.fits.active_fit(namespace)
            since = self._swept_at.get(namespace, fit.at if fit is not None else 0.0)
            if self.references.count_references(namespace, since) < after:
                continue
            try:
                done = self.sweep(SCHEDULE, namespace)
            except Conflict:
                break  # one is under way, asked by hand: the next run sees what is left
            swept.append(namespace)
            if done.kept is not None:
                kept.append(f"{namespace} v{done.kept.version}")
        return {"swept": len(swept), "kept": kept}

    def _sweep(self, principal: Principal, namespace: str) -> Swept:
        started = time.perf_counter()
        now = self.clock()
        self._swept_at[namespace] = now
        in_force = self.answerer.tunings.of(namespace)
        floors = sorted({*FLOORS, in_force.floor})
        asked: list[Asked] = [
            ask(self.answerer, reference, now, floors)
            for reference in self.references.references(namespace, 0, MOST_REFERENCES)
        ]
        report = fit_sweep(asked, in_force.threshold, in_force.floor)
        kept = None
        if report.changed:
            kept = self.fits.add_fit(
                Fit(
                    namespace,
                    0,
                    report.threshold,
                    report.floor,
                    now,
                    principal.name,
                    {**report.figures, "replaced": asdict(in_force)},
                )
            )
            self.answerer.tunings.forget()
        took = round((time.perf_counter() - started) * 1000, 1)
        return Swept(namespace, report, in_force, kept, took)

    def calibrations(self, principal: Principal, namespace: str | None) -> Calibrations:
        """The calibration in force for the namespace, its fits and its references."""
        principal.require_admin()
        name = principal.namespace(namespace)
        return Calibrations(
            name,
            self.answerer.tunings.of(name),
            self.fits.fits(name),
            self.references.count_references(name),
        )

    def roll_back(self, principal: Principal, namespace: str | None, version: int) -> Tuning:
        """Apply the namespace's fit of ``version`` (0: the shipped calibration)."""
        principal.require_admin()
        name = principal.namespace(namespace)
        try:
            self.fits.activate_fit(name, version)
        except KeyError:
            raise NotFound(f"namespace {name!r} has no calibration version {version}") from None
        self.answerer.tunings.forget()
        return self.answerer.tunings.of(name)
