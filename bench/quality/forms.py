"""Figures by question form (a query's ``metadata.form``, as adr-dev's ``worded``, ``plain``
and ``log``): rank 1, top 3 and MRR@10 per form, and what held rank 1 when no relevant
document did. Pure: rankings and qrels in, figures out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from bench.quality.metrics import hit_at_k, mean, mrr_at_k
from service.evaluation.beir import Qrels, Query

FORM = "form"
"""The query metadata key that names its form."""
DECISION_FORMS = ("worded", "plain")
"""Forms that ask for a decision; together they make ``ALL_DECISION``."""
ALL_DECISION = "all decision"
UNSET = "unset"
"""The group of a query without a form, in a set where others have one."""
GROUP_ORDER = ("worded", "plain", ALL_DECISION, "log")
"""The groups printed first, in this order; any other form follows, by name."""
ENTRY_KINDS = ("decision", "discussion", "commit")
"""Entry types counted apart when one holds rank 1; any other is ``OTHER``."""
OTHER = "other"
NOTHING = "nothing"
"""No result at all."""
MISS_KINDS = (*ENTRY_KINDS, OTHER, NOTHING)

EVERY_TIER = "search, every tier"
"""The ``default`` mode's searches: the service's defaults."""
TIER_A = "search, tier A only"
"""The same searches with ``tiers: ["A"]``."""
RETRIEVE = "retrieve"
"""``POST /v1/retrieve``: its entries, in order, are the ranking."""


def mode_endpoint(mode: str) -> str:
    """The endpoint name of a mode's searches other than ``default``."""
    return f"search, mode {mode}, every tier"


def form_of(query: Query) -> str | None:
    """The query's ``metadata.form``; None when it has none."""
    form = query.metadata.get(FORM)
    return None if form in (None, "") else str(form)


def form_groups(queries: Sequence[Query]) -> dict[str, list[str]]:
    """Query ids per form in file order, with ``ALL_DECISION`` (every worded and plain
    query) when both are present; empty when no query has a form."""
    forms = [form_of(q) for q in queries]
    if not any(forms):
        return {}
    groups: dict[str, list[str]] = {}
    for query, form in zip(queries, forms, strict=True):
        groups.setdefault(form or UNSET, []).append(query.id)
    if all(form in groups for form in DECISION_FORMS):
        groups[ALL_DECISION] = [
            q.id for q, f in zip(queries, forms, strict=True) if f in DECISION_FORMS
        ]
    first = [g for g in GROUP_ORDER if g in groups]
    return {g: groups[g] for g in [*first, *sorted(set(groups) - set(first))]}


def entry_kind(entry_type: object) -> str:
    """What kind of entry a result is, by its ``type``: one of ``ENTRY_KINDS``, else
    ``OTHER``."""
    return str(entry_type) if entry_type in ENTRY_KINDS else OTHER


def rank_figures(
    rankings: Mapping[str, Sequence[str]], qrels: Qrels, ids: Sequence[str]
) -> dict[str, float]:
    """Over the queries ``ids`` that were asked: the share with a relevant document at rank
    1 (``rank1``) and in the top 3 (``top3``), MRR@10, and how many there were."""
    asked = [(rankings[q], qrels.get(q, {})) for q in ids if q in rankings]
    return {
        "rank1": mean([hit_at_k(ranked, rels, 1) for ranked, rels in asked]),
        "top3": mean([hit_at_k(ranked, rels, 3) for ranked, rels in asked]),
        "mrr@10": mean([mrr_at_k(ranked, rels, 10) for ranked, rels in asked]),
        "queries": len(asked),
    }


def rank1_misses(
    rankings: Mapping[str, Sequence[str]],
    first_kinds: Mapping[str, str],
    qrels: Qrels,
    ids: Sequence[str],
) -> dict[str, int]:
    """Among the queries ``ids`` whose rank 1 is not relevant: how many had each kind of
    entry there (``first_kinds``: query id → kind of its first result; ``NOTHING`` when
    nothing was returned)."""
    counts = Counter(
        first_kinds.get(q, NOTHING)
        for q in ids
        if q in rankings and not hit_at_k(rankings[q], qrels.get(q, {}), 1)
    )
    return {kind: counts[kind] for kind in MISS_KINDS}
