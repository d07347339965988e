"""Leave-one-set-out: each set scored by models fitted without it, beside the models fitted on
every set, so what a set no model has seen gets (a new user's data) is measured, not hoped.

Offline, on what ``strata calibrate`` already gathered: each set's candidates (the ranking)
and its observations (``answer_confidence``), so no set is searched again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from service.domain.answers.confidence import Calibration
from service.evaluation import calibrate, ranking_fit
from service.evaluation.calibrate import Fitness
from service.evaluation.ranking_fit import RankingFitness
from service.evaluation.workbench import Candidates, Observation


@dataclass(frozen=True)
class LeftOut:
    """One set, by the models fitted with it and by those fitted without it."""

    name: str
    ranked_with: RankingFitness | None
    ranked_without: RankingFitness | None
    confidence_with: Fitness
    confidence_without: Fitness


def leave_one_out(
    pools: Mapping[str, Sequence[Candidates]],
    observed: Mapping[str, Sequence[Observation]],
    everything: Calibration,
    ranked: Mapping[str, RankingFitness],
    set_weights: Mapping[str, float],
) -> list[LeftOut]:
    """Each set of ``observed`` scored by models fitted on the other sets. ``pools`` empty:
    the ranking was not fitted (``--keep-ranking``), so only ``answer_confidence`` is."""
    found = []
    for name, own in observed.items():
        ranked_without = None
        if pools:
            others = {n: p for n, p in pools.items() if n != name}
            model = ranking_fit.fit_ranking(others, {n: set_weights.get(n, 1.0) for n in others})
            ranked_without = ranking_fit.assess_ranking(model, pools[name])
        without = calibrate.fit({n: o for n, o in observed.items() if n != name})
        found.append(
            LeftOut(
                name,
                ranked.get(name),
                ranked_without,
                calibrate.assess(everything, own),
                calibrate.assess(without, own),
            )
        )
    return found


def report(found: Sequence[LeftOut]) -> str:
    """A table of every set: fitted with it, fitted without it."""
    lines = [
        "| left out | R@10 with | without | Hit@5 with | without "
        "| AUC with | without | strong match elsewhere with | without |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for f in found:
        w, wo = f.ranked_with, f.ranked_without
        ranking = (
            f"{w.recall_at_10:.3f} | {wo.recall_at_10:.3f} | {w.hit_at_5:.3f} | {wo.hit_at_5:.3f}"
            if w is not None and wo is not None
            else "- | - | - | -"
        )
        cw, cwo = f.confidence_with, f.confidence_without
        lines.append(
            f"| {f.name} | {ranking} | {cw.auc:.3f} | {cwo.auc:.3f} "
            f"| {cw.elsewhere_strong:.1%} | {cwo.elsewhere_strong:.1%} |"
        )
    return "\n".join(lines)
