"""MMR as a scoring layer."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from service.domain.search.diversity import diversify, overlap


@dataclass
class Item:
    passage: str
    score: float


def test_overlap_is_jaccard_of_word_sets() -> None:
    assert overlap({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)
    assert overlap(set(), {"a"}) == 0.0


def test_lambda_one_changes_nothing() -> None:
    items = [Item("same words here", 0.9), Item("same words here", 0.8)]
    assert diversify(items, 1.0) == [(items[0], 1.0), (items[1], 1.0)]


def test_an_exact_repeat_falls_behind_a_distinct_item_and_factors_stay_in_range() -> None:
    first = Item("billing outage postgres failover", 0.9)
    repeat = Item("billing outage postgres failover", 0.85)
    distinct = Item("customer email about invoices", 0.7)
    ranked = diversify([first, repeat, distinct], 0.5)
    assert [item for item, _ in ranked] == [first, distinct, repeat]
    factors = [factor for _, factor in ranked]
    assert factors == [1.0, 1.0, 0.5]
    adjusted = [item.score * factor for item, factor in ranked]
    assert adjusted == sorted(adjusted, reverse=True)
