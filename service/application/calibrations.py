"""A namespace's calibration learned from its reference questions: the sweep, the fits it
kept, and rolling one back."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, asdict, dataclass, field
from typing import Any

from service.application.auth import Principal
from service.domain.answers.answer import Answerer
from service.domain.answers.sweep import FLOORS, Asked, SweepReport, ask, fit_sweep
from service.domain.answers.tuning import DEPLOYMENT, Tuning
from service.domain.model.references import Fit, Reference
from service.domain.ports.references import Fits, References
from service.errors import Conflict, Forbidden, InvalidInput, NotFound

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


@dataclass(eq=False)
class CalibrationUseCases:
    answerer: Answerer
    references: References
    fits: Fits
    _: KW_ONLY
    clock: Callable[[], float] = time.time
    _sweeping: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _swept_at: dict[str, float] = field(default_factory=dict, init=False, repr=False)
    """When each namespace was last swept here."""

    def sweep(
        self, principal: Principal, namespace: str | None, *, deployment: bool = False
    ) -> Swept:
        """Ask every reference question of the namespace through the read path, as agents
        ask (nothing logged, nothing counted), and keep the fit the cross-validation
        supports; with ``deployment``, those of every namespace together, for the fit that
        serves the namespaces without one of their own. Conflict while another sweep runs
        here."""
        name = self._scope(principal, namespace, deployment)
        if not self._sweeping.acquire(blocking=False):
            raise Conflict("a sweep is under way; try again when it has finished")
        try:
            return self._sweep(principal, name)
        finally:
            self._sweeping.release()

    def sweep_due(self, after: int) -> dict[str, Any]:
        """Sweep each namespace given at least ``after`` reference questions since its last
        sweep (here, or its fit in force); the scheduled job. Never the deployment: its fit
        moves the scores of namespaces that recorded none of its references, an admin's
        call."""
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
            ask(self.answerer, reference, now, floors) for reference in self._asked(namespace)
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

    def calibrations(
        self, principal: Principal, namespace: str | None, *, deployment: bool = False
    ) -> Calibrations:
        """The calibration in force for the namespace (or the deployment's), its fits and
        the references its sweep asks."""
        name = self._scope(principal, namespace, deployment)
        spaces = self.references.reference_namespaces() if name == DEPLOYMENT else [name]
        return Calibrations(
            name,
            self.answerer.tunings.of(name),
            self.fits.fits(name),
            sum(self.references.count_references(n) for n in spaces),
        )

    def roll_back(
        self,
        principal: Principal,
        namespace: str | None,
        version: int,
        *,
        deployment: bool = False,
    ) -> Tuning:
        """Apply the namespace's fit (or the deployment's) of ``version`` (0: none of its
        own: the deployment's fit for a namespace, the shipped calibration for the
        deployment)."""
        name = self._scope(principal, namespace, deployment)
        try:
            self.fits.activate_fit(name, version)
        except KeyError:
            whose = "the deployment" if name == DEPLOYMENT else f"namespace {name!r}"
            raise NotFound(f"{whose} has no calibration version {version}") from None
        self.answerer.tunings.forget()
        return self.answerer.tunings.of(name)

    def _scope(self, principal: Principal, namespace: str | None, deployment: bool) -> str:
        """The namespace a call is about; ``DEPLOYMENT`` for the deployment's calibration,
        which only a key of every namespace may change or read."""
        principal.require_admin()
        if not deployment:
            return principal.namespace(namespace)
        if namespace is not None:
            raise InvalidInput.one("deployment", "names no namespace: the deployment is all")
        if principal.namespaces is not None:
            raise Forbidden("the deployment's calibration needs a key of every namespace")
        return DEPLOYMENT

    def _asked(self, namespace: str) -> list[Reference]:
        """The references a sweep asks, the first ``MOST_REFERENCES`` recorded: the
        namespace's, or every namespace's for the deployment."""
        if namespace != DEPLOYMENT:
            return self.references.references(namespace, 0, MOST_REFERENCES)
        found: list[Reference] = []
        for name in self.references.reference_namespaces():
            found += self.references.references(name, 0, MOST_REFERENCES - len(found))
            if len(found) >= MOST_REFERENCES:
                break
        return found
