"""Which ``strong_match`` threshold and relevance floor a namespace's requests are given: the
namespace's own fit, else the deployment's, else the shipped calibration.

A sweep (``service.domain.answers.sweep``) fits them on a namespace's reference questions and
keeps each fit as a version in the ledger; ``Tunings`` reads the fit in force, and keeps it
for a few seconds, so a request asks the ledger at most that often per namespace (a replica
sees another's sweep or rollback that much later)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Literal

from service.domain.model.references import Fit
from service.domain.ports.references import Fits

DEPLOYMENT = ""
"""The namespace of a fit that serves every namespace without one of its own."""
KEPT_SECONDS = 5.0
"""How long a namespace's fit in force is kept before the ledger is asked again."""
KEPT_NAMESPACES = 4096
"""Most namespaces whose fit is kept at once (all are forgotten when more are asked)."""

Scope = Literal["shipped", "namespace", "deployment"]


@dataclass(frozen=True)
class Tuning:
    threshold: float
    """``answer_confidence`` at or above which a retrieve is a strong match."""
    floor: float
    """The relevance floor of a request that names none."""
    scope: Scope = "shipped"
    """Whose fit it is: the namespace's, the deployment's, or none (the shipped one)."""
    version: int = 0
    """The fit's version; 0: the shipped calibration."""

    @classmethod
    def of(cls, fit: Fit) -> Tuning:
        scope: Scope = "deployment" if fit.namespace == DEPLOYMENT else "namespace"
        return cls(fit.threshold, fit.floor, scope, fit.version)

    @property
    def name(self) -> str:
        """``shipped``, ``namespace v3`` or ``deployment v2``."""
        return self.scope if self.scope == "shipped" else f"{self.scope} v{self.version}"


@dataclass(frozen=True)
class Change:
    """A fit a sweep kept, with the calibration it replaced."""

    fit: Fit
    replaced: Tuning


def changes_between(fits: list[Fit], start: float, end: float, shipped: Tuning) -> list[Change]:
    """The fits of ``fits`` (one namespace's, newest first) made at ``start`` or later and
    before ``end``, oldest first, each with the calibration it replaced: as its sweep
    recorded it, else the version before it, else the shipped one."""
    changes = []
    for n, fit in enumerate(fits):
        if not start <= fit.at < end:
            continue
        told = fit.figures.get("replaced")
        if told:
            replaced = Tuning(**told)
        elif n + 1 < len(fits):
            replaced = Tuning.of(fits[n + 1])
        else:
            replaced = shipped
        changes.append(Change(fit, replaced))
    return changes[::-1]


@dataclass(eq=False)
class Tunings:
    """The tuning in force for each namespace, over the ledger's fits (None: the shipped
    one everywhere)."""

    fits: Fits | None
    shipped: Tuning
    _: KW_ONLY
    clock: Callable[[], float] = time.monotonic
    kept_seconds: float = KEPT_SECONDS
    _kept: dict[str, tuple[float, Tuning | None]] = field(
        default_factory=dict, init=False, repr=False
    )
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def of(self, namespace: str) -> Tuning:
        """The namespace's fit, else the deployment's, else the shipped calibration."""
        return self._fit(namespace) or self._fit(DEPLOYMENT) or self.shipped

    def forget(self) -> None:
        """Read every fit from the ledger again at the next request (after a sweep or a
        rollback here)."""
        with self._lock:
            self._kept.clear()

    def _fit(self, namespace: str) -> Tuning | None:
        if self.fits is None:
            return None
        now = self.clock()
        with self._lock:
            kept = self._kept.get(namespace)
        if kept is not None and now - kept[0] < self.kept_seconds:
            return kept[1]
        fit = self.fits.active_fit(namespace)
        tuning = Tuning.of(fit) if fit is not None else None
        with self._lock:
            if len(self._kept) >= KEPT_NAMESPACES:
                self._kept.clear()
            self._kept[namespace] = (now, tuning)
        return tuning
