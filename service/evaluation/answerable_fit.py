"""The answerable model (``service.domain.search.answerable``), fitted on each set's questions asked
where they belong and, when a set holds several namespaces, once more in the next one, where
nothing answers them (``Workbench.candidates``).

A search settles the candidates its pool order puts first (``SETTLED`` of them at least), so
each question's features are read from its first ``SETTLED`` candidates by the ranking
model's pool weights, with their relevance by that model, and it counts as answerable when a
relevant one is among them. Within a set, the questions asked elsewhere weigh as much
together as those asked at home; the sets weigh alike unless ``set_weights`` say otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from service.domain.search.answerable import (
    ANSWERABLE_FEATURES,
    EVIDENCE_FEATURES,
    AnswerableModel,
    answerable_features,
)
from service.domain.search.learned import SETTLED, RankingModel, pool_logits, settled_rows
from service.domain.search.list_features import LIST_FEATURES
from service.evaluation.fitting import logistic
from service.evaluation.workbench import Candidates, scored_rows

ANSWERABLE_L2 = 1e-4
"""A little shrinkage: the features are few and the classes almost apart on the dev sets,
where an unpenalised fit would grow its weights without bound."""


def settled_features(found: Candidates, ranking: RankingModel) -> dict[str, float]:
    """``answerable_features`` of the candidates a search would settle, by ``ranking`` (its
    answerable part aside)."""
    order = _order(found, ranking.pool_weights)
    rows = scored_rows(found, ranking)
    relevance = [ranking.probability(ranking.logit(rows[i])) for i in order]
    return answerable_features([found.features[i] for i in order], relevance)


def holds_answer(found: Candidates, pool_weights: Mapping[str, float]) -> bool:
    """A relevant candidate is among those a search would settle."""
    order = _order(found, pool_weights)
    return any(found.relevant[i] for i in order)


def fit_answerable(
    sets: Mapping[str, Sequence[Candidates]],
    ranking: RankingModel,
    set_weights: Mapping[str, float] | None = None,
) -> AnswerableModel | None:
    """The model beside ``ranking``, or None when the questions do not tell the two apart
    (none was asked elsewhere, or none holds an answer)."""
    rows, truth, share = [], [], []
    for name, found in sets.items():
        weight = (set_weights or {}).get(name, 1.0)
        home = [c for c in found if not c.elsewhere]
        away = [c for c in found if c.elsewhere]
        for group in (home, away):
            for c in group:
                features = settled_features(c, ranking)
                rows.append([features[f] for f in ANSWERABLE_FEATURES])
                truth.append(float(not c.elsewhere and holds_answer(c, ranking.pool_weights)))
                share.append(weight / len(group))
    if len(set(truth)) < 2:
        return None
    x, y, w = np.array(rows), np.array(truth), np.array(share)
    evidence = len(EVIDENCE_FEATURES)
    beta = logistic(x[:, :evidence], y, w, l2=ANSWERABLE_L2)
    # Then how much memory holds and the names, from where the evidence left each question,
    # with no bias of their own: a question naming nothing, or only what a candidate holds,
    # is judged by the evidence as it was; each only ever lowers the probability (a weight
    # fitted the other way is dropped, not reversed).
    start = beta[0] + x[:, :evidence] @ beta[1:]
    lowering = logistic(x[:, evidence:], y, w, l2=ANSWERABLE_L2, offset=start, intercept=False)
    weights = [*beta[1:], *(min(float(v), 0.0) for v in lowering)]
    return AnswerableModel(
        weights={f: round(float(v), 4) for f, v in zip(ANSWERABLE_FEATURES, weights, strict=True)},
        bias=round(float(beta[0]), 4),
    )


def _order(found: Candidates, pool_weights: Mapping[str, float]) -> list[int]:
    """The candidates a search settles, as ``Workbench`` and the learned fusion order them."""
    rows = np.array([[row.get(f, 0.0) for f in LIST_FEATURES] for row in found.features])
    return settled_rows(pool_logits(rows, pool_weights), SETTLED) if len(rows) else []
