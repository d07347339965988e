"""The daily report, with the questions and strong-match rate of the 30 days up to it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from litestar import get
from litestar.response import Template

from schemas import wire
from service.edge.deps import Caller, CallerDep
from service.edge.params import AnyRequest, Day, Namespace
from service.present.answers import daily_out
from service.ui.charts import Day as ChartDay
from service.ui.charts import chart
from service.ui.pages import page

DAYS = 30


@dataclass(frozen=True)
class Unanswered:
    """A question asked without a strong match, once or more that day: its last asking."""

    last: wire.UnansweredQuestion
    times: int
    askers: list[str]
    """Who asked it, in the order they first did."""


def grouped(questions: list[wire.UnansweredQuestion]) -> list[Unanswered]:
    """The questions, each text once, in the order first asked, with how many times and by
    whom it was asked."""
    by_text: dict[str, list[wire.UnansweredQuestion]] = {}
    for asked in questions:
        by_text.setdefault(asked.question, []).append(asked)
    return [
        Unanswered(
            same[-1], len(same), list(dict.fromkeys(a.asker for a in same if a.asker is not None))
        )
        for same in by_text.values()
    ]


def report(
    caller: Caller, day: date | None, namespace: str | None, *, whole: bool = True
) -> wire.DailyReportResponse:
    found = caller.services.answers.daily_report(
        caller.principal, day.isoformat() if day else None, namespace, whole=whole
    )
    return daily_out(found)


@get("/reports", name="console-reports", sync_to_thread=True)
def reports_page(
    request: AnyRequest, caller: CallerDep, day: Day = None, namespace: Namespace = None
) -> Template:
    shown = report(caller, day, namespace)
    last = date.fromisoformat(shown.date)
    days = [
        shown if n == 0 else report(caller, earlier, namespace, whole=False)
        for n in reversed(range(DAYS))
        if (earlier := shifted(last, -n)) is not None
    ]
    drawn = chart([ChartDay(d.date, d.questions, d.strong_match_rate) for d in days])
    previous, following = shifted(last, -1), shifted(last, 1)
    return page(
        request,
        "reports.html",
        section="reports",
        report=shown,
        unanswered=grouped(shown.unanswered),
        days=days,
        chart=drawn,
        previous=previous.isoformat() if previous else None,
        following=following.isoformat() if following else None,
    )


def shifted(day: date, days: int) -> date | None:
    """``day`` moved by ``days``; None past the first or last day of the calendar."""
    try:
        return day + timedelta(days=days)
    except OverflowError:
        return None
