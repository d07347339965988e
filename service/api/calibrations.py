"""A namespace's calibration from its reference questions: sweep, list, roll back. Admin
keys only."""

from __future__ import annotations

from litestar import Controller, get, post
from litestar.params import JSONBody

from schemas import wire
from service.edge.deps import PoolsDep, PrincipalDep, ServicesDep
from service.edge.openapi import problems
from service.edge.params import Namespace
from service.present.calibrations import calibrations_out, sweep_out
from service.present.search import calibration_out


class CalibrationsController(Controller):
    path = "/v1/admin"
    tags = ["admin"]

    @post("/sweep", status_code=200, responses=problems(409))
    async def sweep(
        self,
        data: JSONBody[wire.SweepRequest],
        services: ServicesDep,
        principal: PrincipalDep,
        pools: PoolsDep,
    ) -> wire.SweepResponse:
        """Ask the namespace's reference questions as agents ask them (nothing logged or
        counted), fit its strong-match threshold and relevance floor with cross-validation,
        and apply the fit when it beats the calibration in force on the references left
        out. Runs on a thread of its own: agents' requests never wait for it."""
        swept = await pools.aside(services.calibrations.sweep, principal, data.namespace)
        return sweep_out(swept)

    @get("/calibrations", sync_to_thread=True)
    def calibrations(
        self, services: ServicesDep, principal: PrincipalDep, namespace: Namespace = None
    ) -> wire.CalibrationsResponse:
        """The calibration in force for the namespace and every fit its sweeps kept."""
        return calibrations_out(services.calibrations.calibrations(principal, namespace))

    @post("/calibrations/rollback", status_code=200, sync_to_thread=True, responses=problems(404))
    def roll_back(
        self,
        data: JSONBody[wire.RollbackRequest],
        services: ServicesDep,
        principal: PrincipalDep,
    ) -> wire.CalibrationUsed:
        """Apply an earlier fit of the namespace again (version 0: the shipped calibration)."""
        tuning = services.calibrations.roll_back(principal, data.namespace, data.version)
        return calibration_out(tuning)
