"""A namespace's reference questions and its calibration: the last sweep's curves, the fits
kept, a sweep now, a rollback (admins); a reference recorded from a logged question."""

from __future__ import annotations

from functools import partial
from typing import Annotated

from litestar import get, post
from litestar.params import FromPath, QueryParameter
from litestar.response import Redirect, Template

from schemas import wire
from service.edge.deps import Caller, CallerDep
from service.edge.params import AnyRequest, Namespace
from service.errors import InvalidInput
from service.present.calibrations import calibrations_out, sweep_out
from service.present.references import references_out
from service.ui.curves import Plot, plot
from service.ui.links import query
from service.ui.pages import page, redirect

CALIBRATION = "/ui/calibration"
Asked = Annotated[str, QueryParameter(max_length=10_000, description="Fills the form")]
LISTED = 200
"""Most reference questions the page lists."""


def curves(
    thresholds: list[wire.ThresholdPoint], floors: list[wire.FloorPoint], used: wire.CalibrationUsed
) -> tuple[Plot, Plot] | None:
    """Precision and recall against the threshold, the floor's two errors against the
    floor; None without a sweep's figures."""
    if not thresholds or not floors:
        return None
    by_threshold = plot(
        [p.threshold for p in thresholds],
        {"precision": [p.precision for p in thresholds], "recall": [p.recall for p in thresholds]},
        {"threshold": used.threshold},
    )
    by_floor = plot(
        [p.floor for p in floors],
        {
            "false empties": [p.false_empties for p in floors],
            "false results": [p.false_results for p in floors],
        },
        {"floor": used.floor},
        log_x=True,
    )
    return by_threshold, by_floor


def shown(
    request: AnyRequest,
    caller: Caller,
    namespace: str | None,
    swept: wire.SweepResponse | None = None,
    question: str = "",
) -> Template:
    services, principal = caller.services, caller.principal
    held = services.calibrations.calibrations(principal, namespace)
    found = calibrations_out(held)
    listed = references_out(services.references.listed(principal, found.namespace, 0, LISTED))
    thresholds: list[wire.ThresholdPoint] = []
    floors: list[wire.FloorPoint] = []
    if swept is not None:
        thresholds, floors = swept.thresholds, swept.floors
    elif (fit := next((f for f in found.fits if f.in_force), None)) is not None:
        figures = next(f.figures for f in held.fits if f.version == fit.version)
        thresholds = [wire.ThresholdPoint(**p) for p in figures.get("thresholds", [])]
        floors = [wire.FloorPoint(**p) for p in figures.get("floors", [])]
    return page(
        request,
        "calibration.html",
        section="calibration",
        found=found,
        references=listed,
        swept=swept,
        plots=curves(thresholds, floors, swept.after if swept else found.in_force),
        question=question,
    )


def back(request: AnyRequest, namespace: str | None) -> Redirect:
    """To the namespace's calibration page again."""
    return redirect(request, query(CALIBRATION, namespace=namespace or ""))


@get("/calibration", name="console-calibration", sync_to_thread=True)
def calibration_page(
    request: AnyRequest, caller: CallerDep, namespace: Namespace = None, question: Asked = ""
) -> Template:
    """The namespace's reference questions and calibration; ``question`` fills the form
    (a question the reports list as unanswered, say)."""
    return shown(request, caller, namespace, question=question)


@post("/calibration/sweep", name="console-sweep")
async def sweep(request: AnyRequest, caller: CallerDep, namespace: Namespace = None) -> Template:
    """Sweep now; the page comes back with its curves and what it kept."""
    swept = sweep_out(await caller.aside(caller.services.calibrations.sweep, namespace))
    return shown(request, caller, swept.namespace, swept)


@post("/calibration/rollback", name="console-rollback")
async def roll_back(
    request: AnyRequest, caller: CallerDep, namespace: Namespace = None
) -> Redirect:
    """Apply the fit of the form's ``version`` again (0: the shipped calibration)."""
    form = await request.form()
    version = str(form.get("version") or "0")
    if not version.isdigit():
        raise InvalidInput.one("version", "must be a whole number")
    await caller.write(caller.services.calibrations.roll_back, namespace, int(version))
    return back(request, namespace)


@post("/calibration/references", name="console-record-reference")
async def record(request: AnyRequest, caller: CallerDep, namespace: Namespace = None) -> Redirect:
    """Record a reference question from the form: the ids that answer it, or none."""
    form = await request.form()
    answers = str(form.get("answers") or "").replace(",", " ").split()
    question, nothing = str(form.get("question") or ""), bool(form.get("nothing"))
    record = partial(caller.services.references.record, source="console")
    await caller.write(record, question, answers, nothing, namespace)
    return back(request, namespace)


@post("/calibration/references/{reference_id:str}/remove", name="console-remove-reference")
async def remove(
    request: AnyRequest, reference_id: FromPath[str], caller: CallerDep, namespace: Namespace = None
) -> Redirect:
    await caller.write(caller.services.references.remove, namespace, reference_id)
    return back(request, namespace)
