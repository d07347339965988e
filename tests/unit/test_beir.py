"""BEIR corpus rows read as strata events (tiers and ages taken from the row), and queries
read with their metadata."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from schemas import wire
from service.evaluation.beir import Doc, Query, load_queries, to_event, write_order

NOW = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)


def row(**metadata: Any) -> Doc:
    return Doc(id="conv-1:D3:2", source_id="conv-1:D3:2", title="", text="hi", metadata=metadata)


def test_a_row_s_own_tier_wins_over_the_default() -> None:
    assert to_event(row(tier="C"), "A", "bench")["tier"] == "C"
    assert to_event(row(tier="E"), "A", "bench")["tier"] == "E"


def test_rows_without_a_tier_take_the_one_given() -> None:
    assert to_event(row(namespace="conv-1"), "E", "bench")["tier"] == "E"
    assert to_event(row(tier=""), "A", "bench")["tier"] == "A"


def test_an_aged_row_is_dated_its_age_before_now_whatever_its_written_timestamp() -> None:
    doc = row(tier="C", timestamp="2026-11-20T21:27:19", age_days=2.5)
    event = to_event(doc, "A", "bench", now=NOW)
    assert event["timestamp"] == "2027-02-27T00:00:00Z"


def test_ages_keep_their_order_and_whole_days() -> None:
    recent = to_event(row(age_days=2), "A", "bench", now=NOW)["timestamp"]
    old = to_event(row(age_days=9), "A", "bench", now=NOW)["timestamp"]
    assert (recent, old) == ("2027-02-27T12:00:00Z", "2027-02-20T12:00:00Z")


def test_without_an_age_the_row_s_timestamp_dates_it() -> None:
    event = to_event(row(timestamp="2026-06-08T16:28:19"), "A", "bench", now=NOW)
    assert event["timestamp"] == "2026-06-08T16:28:19Z"


def test_an_unreadable_age_falls_back_to_the_timestamp() -> None:
    doc = row(timestamp="2026-06-08", age_days="soon")
    assert to_event(doc, "A", "bench", now=NOW)["timestamp"] == "2026-06-08T00:00:00Z"


def test_age_is_counted_from_the_current_time_by_default() -> None:
    before = datetime.now(UTC)
    stamp = to_event(row(age_days=1), "A", "bench")["timestamp"]
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert 86_400 - 5 <= (before - moment).total_seconds() <= 86_400


def test_tier_and_age_are_not_copied_into_metadata() -> None:
    doc = row(namespace="conv-1", speaker="Mel", session=3, tier="C", age_days=1.0, topic="art")
    event = to_event(doc, "A", "bench", now=NOW)
    assert event["metadata"] == {"session": "3", "topic": "art"}
    assert (event["namespace"], event["speaker"], event["thread"]) == (
        "bench-conv-1",
        "Mel",
        "session-3",
    )


def test_a_tiered_row_makes_a_valid_event() -> None:
    doc = row(namespace="conv-1", tier="C", timestamp="2026-11-20T21:27:19", age_days=2.625)
    event = msgspec.convert(to_event(doc, "A", "calibrate", now=NOW), wire.Event)
    assert event.tier == "C"
    assert event.metadata == {}


def test_queries_keep_their_metadata(tmp_path: Path) -> None:
    rows = [
        {
            "_id": "q1",
            "text": "Which did we choose?",
            "metadata": {"namespace": "n", "form": "worded"},
        },
        {"_id": "q2", "text": "plain"},
    ]
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    first, second = load_queries(tmp_path)
    assert (first.namespace, first.metadata["form"]) == ("n", "worded")
    assert (second.namespace, second.metadata) == (None, {})


def test_a_query_made_without_metadata_has_none_and_stays_hashable() -> None:
    query = Query("q", "text", "ns")
    assert query.metadata == {}
    assert hash(query) == hash(Query("q", "text", "ns", {"form": "log"}))


def test_a_row_s_type_and_the_rows_it_replaces_become_the_event_s() -> None:
    doc = row(type="decision", supersedes=["adr-set:adr 002"], status="Accepted")
    event = to_event(doc, "A", "bench", now=NOW)
    assert event["type"] == "decision"
    assert event["supersedes"] == ["adr-set:adr_002"]  # the service id of that row
    assert event["metadata"] == {"status": "Accepted"}
    msgspec.convert(event, wire.Event)


def test_rows_that_replace_others_are_written_after_them() -> None:
    def doc(id_: str, *replaced: str) -> Doc:
        return Doc(id_, id_, "", id_, {"supersedes": list(replaced)} if replaced else {})

    newest, older, oldest, alone = doc("c", "b"), doc("b", "a"), doc("a"), doc("x", "gone")
    phases = write_order([newest, older, oldest, alone])
    assert [[d.id for d in phase] for phase in phases] == [["a", "x"], ["b"], ["c"]]


def test_a_cycle_of_replacements_is_written_last_rather_than_never() -> None:
    one = Doc("1", "1", "", "1", {"supersedes": "2"})
    two = Doc("2", "2", "", "2", {"supersedes": "1"})
    assert [[d.id for d in phase] for phase in write_order([one, two])] == [["1", "2"]]
