"""The console's pure parts: the signing secret, sessions, marked snippets, the chart."""

from __future__ import annotations

import stat
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from service.ui.charts import Day, chart, nice_ceiling
from service.ui.links import document_link
from service.ui.marks import marked
from service.ui.routes.search import Verdict, opening, verdict
from service.ui.secret import FILE, SigningSecret
from service.ui.session import SESSION_SECONDS, Sessions
from service.ui.templating import Moment, counted, when
from tests.fakes import FakeClock


def test_without_a_configured_secret_one_is_made_once_and_kept_private(tmp_path: Path) -> None:
    first = SigningSecret("", tmp_path / "data").value()
    path = tmp_path / "data" / FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first) >= 32
    assert SigningSecret("", tmp_path / "data").value() == first, "a restart keeps sessions"
    assert [p.name for p in path.parent.iterdir()] == [FILE], "nothing left aside"


def test_a_configured_secret_is_used_and_nothing_written(tmp_path: Path) -> None:
    assert SigningSecret("s" * 32, tmp_path).value() == b"s" * 32
    assert not (tmp_path / FILE).exists()


def test_sessions_hold_across_replicas_sharing_the_secret_and_expire(clock: FakeClock) -> None:
    one = Sessions(lambda: b"shared-secret-" * 3, clock)
    other = Sessions(lambda: b"shared-secret-" * 3, clock)
    stranger = Sessions(lambda: b"another-secret" * 3, clock)
    cookie = one.encode(one.new("the-key-0123456789"))
    session = other.decode(cookie)
    assert session is not None and session.key == one.key_digest("the-key-0123456789")
    assert "the-key-0123456789" not in cookie
    assert stranger.decode(cookie) is None
    assert one.csrf(session) == other.csrf(session) != stranger.csrf(session)
    clock.advance(SESSION_SECONDS + 1)
    assert other.decode(cookie) is None


def test_marked_escapes_first_then_marks_the_words_matched() -> None:
    shown = marked("Alice is <b>allergic</b> to peanuts & shellfish", "peanut allergy")
    assert str(shown) == (
        "Alice is &lt;b&gt;<mark>allergic</mark>&lt;/b&gt; to <mark>peanuts</mark> &amp; shellfish"
    )
    assert (
        str(marked("<mark>x</mark>", "mark"))
        == "&lt;<mark>mark</mark>&gt;x&lt;/<mark>mark</mark>&gt;"
    )
    assert "<mark>" not in str(marked("billing and bills", "a of"))


def test_document_links_open_the_page_holding_the_line_at_its_anchor() -> None:
    assert document_link("notes/a.md", "12-20") == "/ui/documents?path=notes%2Fa.md#L12"
    assert (
        document_link("notes/a.md", "2500-2510")
        == "/ui/documents?path=notes%2Fa.md&from=2001#L2500"
    )
    assert document_link("notes/a.md", None) == "/ui/documents?path=notes%2Fa.md"


@pytest.mark.parametrize(
    ("value", "ceiling"), [(0, 1), (1, 1), (3, 5), (7, 10), (12, 20), (51, 100)]
)
def test_the_question_scale_ends_on_a_round_number(value: int, ceiling: int) -> None:
    assert nice_ceiling(value) == ceiling


def test_the_chart_draws_a_bar_per_day_and_a_point_per_day_with_questions() -> None:
    days = [
        Day("2027-01-01", 4, 0.5),
        Day("2027-01-02", 0, None),
        Day("2027-01-03", 10, 1.0),
        Day("2027-01-04", 2, 0.0),
    ]
    drawn = chart(days)
    assert len(drawn.bars) == 4 and [p.day.day for p in drawn.points] == [
        "2027-01-01",
        "2027-01-03",
        "2027-01-04",
    ]
    tallest = max(drawn.bars, key=lambda b: b.height)
    assert tallest.day.day == "2027-01-03" and tallest.y == pytest.approx(drawn.frame.top)
    assert drawn.bars[1].height == 0
    assert len(drawn.lines) == 2, "a day without questions breaks the line"
    full, empty = drawn.points[1], drawn.points[2]
    assert full.y == pytest.approx(drawn.frame.top) and empty.y == pytest.approx(drawn.frame.bottom)
    assert [t.label for t in drawn.question_ticks] == ["0", "2", "4", "6", "8", "10"]
    assert [t.label for t in chart([Day("2027-01-01", 2, 1.0)]).question_ticks] == ["0", "1", "2"]


def test_function_words_are_never_marked_as_matched() -> None:
    shown = str(marked("The others said the billing is other work", "the others of billing"))
    assert shown == "The <mark>others</mark> said the <mark>billing</mark> is other work"
    assert "<mark>" not in str(marked("which of the two", "which of the"))


@pytest.mark.parametrize(
    ("moment", "shown"),
    [
        ("2027-01-15T08:00:00.123Z", "2027-01-15 08:00:00 UTC"),
        ("2027-01-15T10:00:00+02:00", "2027-01-15 08:00:00 UTC"),
        (1_800_000_000.5, "2027-01-15 08:00:00 UTC"),
        (1_800_000_000, "2027-01-15 08:00:00 UTC"),
        (datetime(2027, 1, 15, 8, tzinfo=UTC), "2027-01-15 08:00:00 UTC"),
        (datetime(2027, 1, 15, 8), "2027-01-15 08:00:00 UTC"),
        (date(2027, 1, 15), "2027-01-15"),
        (None, ""),
        ("", ""),
        ("not a time", "not a time"),
        (1e20, "1e+20"),
        (float("nan"), "nan"),
        ("0001-01-01T00:00:00+05:00", "0001-01-01T00:00:00+05:00"),
    ],
)
def test_when_shows_every_kind_of_moment_it_is_given(moment: Moment, shown: str) -> None:
    assert when(moment) == shown


def test_counts_take_the_noun_of_their_number() -> None:
    assert [counted(n, "entry", "entries") for n in (0, 1, 2)] == [
        "0 entries",
        "1 entry",
        "2 entries",
    ]
    assert counted(1, "line") == "1 line" and counted(3, "line") == "3 lines"


def test_a_confidence_equal_to_the_threshold_reaches_it_and_close_ones_read_apart() -> None:
    assert verdict(0.69, 0.69) == Verdict("0.69", "0.69", reached=True)
    assert verdict(0.6899, 0.69) == Verdict("0.6899", "0.6900", reached=False)
    assert verdict(0.91, 0.69) == Verdict("0.91", "0.69", reached=True)


def test_a_search_naming_no_namespace_opens_on_the_default_when_it_holds_entries() -> None:
    assert opening("default", ["alice", "default"]) == "default"
    assert opening("default", []) == "default"
    assert opening("default", ["alice", "bob"]) == "alice"
