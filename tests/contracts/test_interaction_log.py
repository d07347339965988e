"""The interaction log's contract: FakeInteractionLog, SqliteInteractionLog and
PostgresInteractionLog."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from service.domain.model import Feedback, Interaction, InteractionResult
from service.domain.ports import InteractionLog
from service.stores.durable import open_sqlite
from tests.fakes import T0, FakeInteractionLog
from tests.postgres import POSTGRES
from tests.stores import durable_opener

DAY = 86_400
MIGRATIONS = Path(__file__).parents[1] / "legacy/sqlite/interactions"


@pytest.fixture(params=["fake", "sqlite", POSTGRES])
def log(request: pytest.FixtureRequest, tmp_path: Path) -> InteractionLog:
    if request.param == "fake":
        return FakeInteractionLog()
    return durable_opener(request, tmp_path)().interactions


def asked(id: str, at: float, namespace: str = "ns", strong: bool = True) -> Interaction:
    return Interaction(
        id=id,
        at=at,
        namespace=namespace,
        asker="agent:one",
        question=f"question {id}?",
        results=[InteractionResult("a", 0.81, 0.5), InteractionResult("b", 0.25, 0.125)],
        strong_match=strong,
        best_relevance=0.81,
        took_ms=12.5,
        answer_confidence=0.74,
    )


def test_an_interaction_reads_back_as_recorded(log: InteractionLog) -> None:
    # Logged before answers carried a confidence: none.
    weak = Interaction("w", T0, "ns", None, "anything?", [], False, 0.0, 1.0)
    log.record(asked("1", T0))
    log.record(weak)
    assert log.get("1") == asked("1", T0)
    assert log.get("w") == weak
    assert log.get("missing") is None


def test_an_id_is_recorded_once(log: InteractionLog) -> None:
    log.record(asked("1", T0))
    with pytest.raises(Exception):  # noqa: B017 (each store refuses in its own words)
        log.record(asked("1", T0 + 5))
    assert log.get("1") == asked("1", T0)


def test_feedback_on_no_interaction_is_refused(log: InteractionLog) -> None:
    with pytest.raises(Exception):  # noqa: B017 (each store refuses in its own words)
        log.add_feedback(Feedback("missing", T0, "up", None, "agent:one"))


def test_a_day_holds_what_was_asked_in_it_and_the_feedback_on_that(log: InteractionLog) -> None:
    # Recorded out of time order, in two namespaces, across a day's edges.
    log.record(asked("late", T0 + 3600))
    log.record(asked("early", T0))
    log.record(asked("tie", T0))
    log.record(asked("next-day", T0 + DAY))
    log.record(asked("day-before", T0 - 1))
    log.record(asked("elsewhere", T0 + 10, namespace="other"))
    given = [
        Feedback("late", T0 + 4000, "down", "wrong doc", "agent:one"),
        Feedback("early", T0 + 5000, "up", None, "agent:two"),
        Feedback("early", T0 + 2 * DAY, "down", None, "agent:one"),  # given later, still counts
        Feedback("next-day", T0 + DAY + 1, "up", None, "agent:one"),
        Feedback("elsewhere", T0 + 20, "up", None, "agent:one"),
    ]
    for item in [given[2], given[1], given[0], *given[3:]]:
        log.add_feedback(item)
    interactions, feedback = log.between("ns", T0, T0 + DAY)
    assert [i.id for i in interactions] == ["early", "tie", "late"]
    assert feedback == given[:3]
    assert log.between("nobody", T0, T0 + DAY) == ([], [])


def test_a_log_written_before_confidences_opens_and_keeps_its_questions(tmp_path: Path) -> None:
    path = tmp_path / "interactions.sqlite3"
    with sqlite3.connect(path) as old:
        old.executescript(MIGRATIONS.joinpath("0001_initial.sql").read_text())
        old.execute(
            "INSERT INTO interactions VALUES ('old', ?, 'ns', NULL, 'why?', '[]', 0, 0.2, 3.0)",
            (T0,),
        )
    stores = open_sqlite(tmp_path)
    upgraded = stores.interactions
    try:
        assert upgraded.get("old") == Interaction(
            "old", T0, "ns", None, "why?", [], False, 0.2, 3.0
        )
        upgraded.record(asked("new", T0 + 1))
        assert upgraded.get("new") == asked("new", T0 + 1)
    finally:
        stores.close()
