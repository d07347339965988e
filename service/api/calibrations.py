"""A namespace's calibration from its reference questions: sweep, list, roll back. Admin
keys only."""

from __future__ import annotations

from functools import partial
from typing import Annotated

from litestar import Controller, get, post
from litestar.params import JSONBody, QueryParameter

from schemas import wire
from service.edge.deps import CallerDep
from service.edge.openapi import problems
from service.edge.params import Namespace
from service.present.calibrations import calibrations_out, sweep_out
from service.present.search import calibration_out

Deployment = Annotated[
    bool, QueryParameter(description="The deployment's calibration (a key of every namespace)")
]


class CalibrationsController(Controller):
    path = "/v1/admin"
    tags = ["admin"]

    @post("/sweep", status_code=200, responses=problems(409))
    async def sweep(
        self, data: JSONBody[wire.SweepRequest], caller: CallerDep
    ) -> wire.SweepResponse:
        """Ask the namespace's reference questions (or, with ``deployment``, every
        namespace's) as agents ask them (nothing logged or counted), fit the strong-match
        threshold and relevance floor with cross-validation, and apply the fit when it beats
        the calibration in force on the references left out. Runs on a thread of its own:
        agents' requests never wait for it."""
        sweep = partial(caller.services.calibrations.sweep, deployment=data.deployment)
        return sweep_out(await caller.aside(sweep, data.namespace))

    @get("/calibrations", sync_to_thread=True)
    def calibrations(
        self, caller: CallerDep, namespace: Namespace = None, deployment: Deployment = False
    ) -> wire.CalibrationsResponse:
        """The calibration in force for the namespace (or the deployment's) and every fit
        its sweeps kept."""
        found = caller.services.calibrations.calibrations(
            caller.principal, namespace, deployment=deployment
        )
        return calibrations_out(found)

    @post("/calibrations/rollback", status_code=200, sync_to_thread=True, responses=problems(404))
    def roll_back(
        self, data: JSONBody[wire.RollbackRequest], caller: CallerDep
    ) -> wire.CalibrationUsed:
        """Apply an earlier fit of the namespace (or the deployment) again; version 0: none
        of its own."""
        tuning = caller.services.calibrations.roll_back(
            caller.principal, data.namespace, data.version, deployment=data.deployment
        )
        return calibration_out(tuning)
