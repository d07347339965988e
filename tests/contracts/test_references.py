"""Reference questions and sweep fits, part of the ledger's contract: FakeLedger,
SqliteLedger and PostgresLedger keep them alike, and drop them with their namespace."""

from __future__ import annotations

from dataclasses import replace

import pytest

from service.domain.model.references import Fit, Reference
from service.domain.ports import Ledger
from tests.contracts.test_change_log import ledger, open_ledger  # noqa: F401
from tests.contracts.test_ledger import stored


def reference(n: int, namespace: str = "team", answers: tuple[str, ...] = ("a",)) -> Reference:
    return Reference(namespace, f"r{n}", f"question {n}?", answers, "admin", "alice", 100.0 + n)


def fit(namespace: str = "team", threshold: float = 0.6, floor: float = 0.01) -> Fit:
    return Fit(namespace, 0, threshold, floor, 500.0, "alice", {"references": 12})


def test_references_are_kept_in_the_order_recorded_once_each(ledger: Ledger) -> None:  # noqa: F811
    assert ledger.add_references([reference(2), reference(1, answers=())]) == 2
    assert ledger.add_references([reference(1), reference(3)]) == 1
    kept = ledger.references("team")
    assert [r.id for r in kept] == ["r2", "r1", "r3"]
    assert kept[1] == reference(1, answers=())
    assert kept[0].answers == ("a",) and not kept[1].answerable
    assert [r.id for r in ledger.references("team", 1, 1)] == ["r1"]
    assert ledger.references("other") == []


def test_references_are_counted_since_a_moment_and_removed_by_id(ledger: Ledger) -> None:  # noqa: F811
    ledger.add_references([reference(n) for n in range(1, 6)])
    ledger.add_references([reference(1, "elsewhere")])
    assert ledger.count_references("team") == 5
    assert ledger.count_references("team", since=103.0) == 3
    assert ledger.reference_namespaces() == ["elsewhere", "team"]
    assert ledger.remove_references("team", ["r1", "r4", "nope"]) == 2
    assert [r.id for r in ledger.references("team")] == ["r2", "r3", "r5"]
    assert ledger.count_references("elsewhere") == 1


def test_references_are_counted_by_source_within_a_span(ledger: Ledger) -> None:  # noqa: F811
    ledger.add_references([reference(n) for n in range(1, 6)])
    ledger.add_references([replace(reference(6), source="feedback")])
    ledger.add_references([reference(7, "elsewhere")])
    assert ledger.recorded_between("team", 102.0, 107.0) == {"admin": 4, "feedback": 1}
    assert ledger.recorded_between("team", 106.0, 107.0) == {"feedback": 1}
    assert ledger.recorded_between("team", 107.0, 200.0) == {}
    assert ledger.recorded_between("nobody", 0.0, 1e12) == {}


def test_fits_are_versioned_and_the_last_is_in_force_until_rolled_back(ledger: Ledger) -> None:  # noqa: F811
    assert ledger.active_fit("team") is None
    first = ledger.add_fit(fit(threshold=0.6))
    second = ledger.add_fit(fit(threshold=0.5))
    assert (first.version, second.version) == (1, 2)
    assert ledger.active_fit("team") == second
    assert second.figures == {"references": 12}
    assert [f.version for f in ledger.fits("team")] == [2, 1]
    assert ledger.activate_fit("team", 1) == first
    assert ledger.active_fit("team") == first
    assert ledger.activate_fit("team", 0) is None
    assert ledger.active_fit("team") is None
    for missing in (3, 2**31 - 1):
        with pytest.raises(KeyError):
            ledger.activate_fit("team", missing)
    assert ledger.active_fit("other") is None
    assert ledger.add_fit(fit("other")).version == 1


def test_an_erased_namespace_keeps_no_reference_or_fit(ledger: Ledger) -> None:  # noqa: F811
    ledger.put([stored("team:a")])
    ledger.add_references([reference(1), reference(2), reference(1, "other")])
    ledger.add_fit(fit())
    erasure = ledger.erase("team", actor="alice", at=900.0, counted={})
    assert erasure.counts["references"] == 2
    assert ledger.references("team") == [] and ledger.fits("team") == []
    assert ledger.active_fit("team") is None
    assert ledger.reference_namespaces() == ["other"]
    assert ledger.erase_references("other") == (1, 0)


def test_a_reference_is_found_by_a_question_of_the_same_words(ledger: Ledger) -> None:  # noqa: F811
    asked = replace(reference(1), question="How often do we rotate API keys?")
    ledger.add_references([asked, replace(asked, namespace="other", id="r9", answers=())])
    for same in ("how often  do we ROTATE api keys", "How often do we rotate API keys?!"):
        assert ledger.reference_asking("team", same) == asked
    assert ledger.reference_asking("team", "How often do we rotate keys?") is None
    assert ledger.reference_asking("elsewhere", asked.question) is None
    # The last recorded of the same words is the team's word now.
    later = replace(asked, id="r2", answers=(), at=300.0)
    ledger.add_references([later])
    assert ledger.reference_asking("team", asked.question) == later
    ledger.remove_references("team", ["r2"])
    assert ledger.reference_asking("team", asked.question) == asked
