"""The sweep: a namespace's reference questions asked as agents ask them, and the
``strong_match`` threshold and relevance floor fitted on them, kept only where they beat
the calibration in force on the references cross-validation leaves out.

A reference names the entries that answer its question, or says nothing in memory does.
A retrieve *answers* a reference when one of the entries it returns is among them; a strong
match is right when the retrieve answers. The floor errs two ways: it leaves a question
memory answers with nothing (a false empty), or gives entries to one nothing answers (a
false result); what it costs is the share of answers within the first ten that it cuts.
"""

from service.domain.answers.sweep.asked import FLOORS, Asked, Judged, ask
from service.domain.answers.sweep.curves import (
    THRESHOLDS,
    FloorPoint,
    ThresholdPoint,
    floor_curve,
    threshold_curve,
)
from service.domain.answers.sweep.fit import (
    MIN_GAIN,
    Figures,
    SweepReport,
    fit_sweep,
    fit_threshold,
)

__all__ = [
    "FLOORS",
    "MIN_GAIN",
    "THRESHOLDS",
    "Asked",
    "Figures",
    "FloorPoint",
    "Judged",
    "SweepReport",
    "ThresholdPoint",
    "ask",
    "fit_sweep",
    "fit_threshold",
    "floor_curve",
    "threshold_curve",
]
