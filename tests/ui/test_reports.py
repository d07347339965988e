"""The reports page: an unanswered question asked again is listed once, with a count."""

from __future__ import annotations

from schemas import wire
from service.ui.routes.reports import grouped
from tests.http import AS_ADMIN
from tests.ui.conftest import Client
from tests.ui.test_pages import FACT, text_of, write


def unanswered(question: str, asker: str | None, at: str) -> wire.UnansweredQuestion:
    return wire.UnansweredQuestion("i-" + at, question, asker, at, 0.0, 0.1)


def test_identical_questions_are_grouped_in_the_order_first_asked() -> None:
    asked = [
        unanswered("who owns kafka?", "pm-bot", "09:00"),
        unanswered("where is the runbook?", None, "09:05"),
        unanswered("who owns kafka?", "ops-bot", "09:10"),
        unanswered("who owns kafka?", "pm-bot", "09:20"),
    ]
    groups = grouped(asked)
    assert [(g.last.question, g.times) for g in groups] == [
        ("who owns kafka?", 3),
        ("where is the runbook?", 1),
    ]
    assert groups[0].last.at == "09:20" and groups[0].askers == ["pm-bot", "ops-bot"]
    assert groups[1].askers == []


def test_the_report_lists_a_question_asked_six_times_once(admin: Client) -> None:
    write(admin, FACT)
    for _ in range(6):
        asked = admin.post(
            "/v1/retrieve",
            json={"question": "who owns the kafka cluster?", "namespace": "one", "asker": "bot"},
            headers=AS_ADMIN,
        )
        assert asked.status_code == 200, asked.text
    html = admin.get("/ui/reports", params={"namespace": "one"}).text
    assert html.count('href="/ui/?q=who+owns+the+kafka+cluster%3F&amp;namespace=one"') == 1
    shown = text_of(html)
    assert "Unanswered questions 6" in shown
    assert "who owns the kafka cluster? asked 6 times bot · last" in shown
