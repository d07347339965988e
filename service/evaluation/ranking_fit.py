"""The learned fusion's ranking model, fitted on the candidates of question sets with known
answers (``Workbench.candidates``).

First the intent head (``intent_fit``): what kind of memory each question asks for, read from
its vector. The weights then maximise the probability that a softmax over a question's
candidates picks a relevant one (a listwise ranking loss, ``fitting.listwise``), over every
feature, the kind features filled with the head's cross-fitted probabilities; a second set
of weights, over the list features alone, orders the pool before entries are loaded; a
logistic map of the weighted sum to "this candidate is relevant" makes it a score that means
the same across queries; and the answerable model (``answerable_fit``), fitted on the
questions asked where nothing answers them too, says whether the candidates hold an answer
at all. The sets weigh alike unless ``set_weights`` say otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from service.domain.search.learned import FEATURES, RankingModel
from service.domain.search.list_features import LIST_FEATURES
from service.evaluation.answerable_fit import fit_answerable, settled_features
from service.evaluation.fitting import listwise, logistic
from service.evaluation.intent_fit import cross_fitted, fit_head
from service.evaluation.workbench import POOL_DEPTH, Candidates, scored_rows, with_asked


def fit_ranking(
    sets: Mapping[str, Sequence[Candidates]], set_weights: Mapping[str, float] | None = None
) -> RankingModel:
    """The ranking model of the sets' candidates: listwise weights over ``FEATURES`` of the
    learned fusion, then the logistic map of their sum to "relevant", every set weighing
    ``set_weights`` (1 when not given) in both."""
    weights = {name: (set_weights or {}).get(name, 1.0) for name in sets}
    everywhere = sets
    sets = {name: [c for c in found if not c.elsewhere] for name, found in sets.items()}
    # The head learns from each question once, in its own namespace; asked in a small
    # namespace too, a question reads what the head fitted without it says of it there.
    plain = {name: [c for c in found if not c.small] for name, found in sets.items()}
    head = fit_head(plain)
    asked = _asked_everywhere(sets, plain, cross_fitted(plain))
    groups = [
        [
            (_matrix(with_asked(c, probabilities)), np.array(c.relevant, dtype=float))
            for c, probabilities in zip(found, asked[name], strict=True)
            if c.features
        ]
        for name, found in sets.items()
    ]
    beta = listwise(groups, list(weights.values()))
    listed = [FEATURES.index(name) for name in LIST_FEATURES]
    pool_beta = listwise(
        [[(x[:, listed], y) for x, y in g] for g in groups], list(weights.values())
    )
    # How much the namespace holds is the same for every candidate of a question, so the
    # listwise fits cannot weigh it: the map to a probability does, beside the logit.
    memory = FEATURES.index("memory")
    beta[memory] = pool_beta[LIST_FEATURES.index("memory")] = 0.0
    logits, truth, share = [], [], []
    for name, batch in zip(sets, groups, strict=True):
        count = sum(len(y) for _, y in batch) or 1
        for x, y in batch:
            logits.append(np.column_stack([x @ beta, x[:, memory]]))
            truth.append(y)
            share.append(np.full(len(y), weights[name] / count))
    platt = logistic(np.concatenate(logits), np.concatenate(truth), np.concatenate(share))
    bias, scale, per_memory = (float(v) for v in platt)
    beta[memory] = per_memory / scale
    pool_weights = {f: round(float(w), 4) for f, w in zip(LIST_FEATURES, pool_beta, strict=True)}
    ranking = RankingModel(
        weights={f: round(float(w), 4) for f, w in zip(FEATURES, beta, strict=True)},
        scale=round(scale, 4),
        bias=round(bias, 4),
        source=", ".join(
            f"{name} (weight {w:g})" if w != 1 else name for name, w in weights.items()
        ),
        list_weights=pool_weights,
        intent=head,
    )
    return replace(ranking, answerable=fit_answerable(everywhere, ranking, weights))


def _asked_everywhere(
    sets: Mapping[str, Sequence[Candidates]],
    plain: Mapping[str, Sequence[Candidates]],
    asked: Mapping[str, Sequence[dict[str, float]]],
) -> dict[str, list[dict[str, float]]]:
    """``asked`` (of each ``plain`` question) for every question of ``sets``: one asked in a
    small namespace takes its own question's."""
    found: dict[str, list[dict[str, float]]] = {}
    for name, questions in sets.items():
        own = {c.question: p for c, p in zip(plain[name], asked[name], strict=True)}
        mine = iter(asked[name])
        found[name] = [own.get(c.question, {}) if c.small else next(mine) for c in questions]
    return found


def _matrix(rows: Sequence[Mapping[str, float]]) -> np.ndarray:
    return np.array([[row[f] for f in FEATURES] for row in rows], dtype=float)


@dataclass(frozen=True)
class RankingFitness:
    """How a ranking model orders a set's candidates (the pool of ``POOL_DEPTH`` a list)."""

    questions: int
    recall_at_10: float
    hit_at_5: float
    answerable_home: float = float("nan")
    """Mean probability that the candidates hold an answer, questions asked at home."""
    answerable_away: float = float("nan")
    """The same, questions asked where nothing answers them (nan: none was)."""


def assess_ranking(model: RankingModel, found: Sequence[Candidates]) -> RankingFitness:
    """How ``model`` (its head included: on questions it was fitted on, so a little
    optimistic) orders each question's candidates."""
    recall, hits = [], []
    held: dict[bool, list[float]] = {False: [], True: []}
    for c in found:
        if c.small:
            continue  # the set's own namespaces are what it reports
        if model.answerable is not None:
            features = settled_features(c, model)
            held[c.elsewhere].append(model.answerable.probability(features))
        if c.elsewhere:
            continue
        rows = scored_rows(c, model)
        order = sorted(range(len(rows)), key=lambda i: -model.logit(rows[i]))
        relevant = sum(c.relevant)
        top = [c.relevant[i] for i in order[:10]]
        recall.append(sum(top) / relevant if relevant else 0.0)
        hits.append(float(any(top[:5])))
    return RankingFitness(
        len(recall),
        float(np.mean(recall)),
        float(np.mean(hits)),
        float(np.mean(held[False])) if held[False] else float("nan"),
        float(np.mean(held[True])) if held[True] else float("nan"),
    )


def ranking_report(model: RankingModel, fitness: Mapping[str, RankingFitness]) -> str:
    """The ranking model, then how it orders each set's candidates."""
    weights = ", ".join(f"{name} {w:+.3f}" for name, w in model.weights.items())
    lines = [
        f"ranking = logistic({model.scale:+.3f} x ({weights}) {model.bias:+.3f})",
        "",
        f"| set | questions | R@10 | Hit@5 (candidates: {POOL_DEPTH} from each list) "
        "| answerable, asked at home | asked elsewhere |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {name} | {f.questions} | {f.recall_at_10:.3f} | {f.hit_at_5:.3f} "
        f"| {f.answerable_home:.3f} | {f.answerable_away:.3f} |"
        for name, f in fitness.items()
    ]
    return "\n".join(lines)
