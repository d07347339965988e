"""Wire bodies to domain values: every bad field named, times in UTC."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from schemas import wire
from service.application.inputs import NamespaceOf, parse_time, to_entries, to_query
from service.domain.aging.tiers import DAY, ExpiryPolicy
from service.domain.entries import Entry, Tier
from service.errors import FieldError, Forbidden, InvalidInput
from service.present.times import format_time
from service.settings import ChunkingSettings
from tests.settings import CHUNKING, expiry_policy

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC).timestamp()


def anyone(namespace: str | None, field: str) -> str:
    return namespace or "default"


def convert(
    *events: wire.Event,
    policy: ExpiryPolicy | None = None,
    namespace: NamespaceOf = anyone,
    chunking: ChunkingSettings = CHUNKING,
) -> list[Entry]:
    ids = (f"gen-{n}" for n in itertools.count(1))
    return to_entries(
        list(events),
        now=NOW,
        new_id=lambda: next(ids),
        policy=policy or expiry_policy(),
        namespace=namespace,
        chunking=chunking,
    )


def fields_of(raised: pytest.ExceptionInfo[InvalidInput]) -> list[str]:
    return [e.field for e in raised.value.errors]


def test_valid_event_becomes_an_entry() -> None:
    [entry] = convert(
        wire.Event(
            text="alice likes tea",
            tier="A",
            id="pref-1",
            namespace="team",
            speaker="alice",
            role="user",
            tags=["pref", "drink", "pref"],
            timestamp="2024-04-30T08:00:00+02:00",
            metadata={"source": "chat", "turn": 3},
        )
    )
    assert entry.key == "team:pref-1"
    assert (entry.tier, entry.text, entry.speaker, entry.role) == (
        "A",
        "alice likes tea",
        "alice",
        "user",
    )
    assert entry.tags == ("pref", "drink")
    assert entry.timestamp == datetime(2024, 4, 30, 6, 0, tzinfo=UTC).timestamp()
    assert entry.metadata == {"source": "chat", "turn": 3}
    assert entry.expires_at is None


def test_a_text_of_more_chunks_than_the_bound_is_refused_naming_it() -> None:
    three = ChunkingSettings(words=10, overlap=2, max_chunks=3)
    words = [f"w{n}" for n in range(27)]  # 3 windows of 10 words, 8 apart, hold 26
    at_bound = wire.Event(text=" ".join(words[:26]), tier="E")
    assert len(convert(at_bound, chunking=three)) == 1
    past = wire.Event(text=" ".join(words), tier="A")
    with pytest.raises(InvalidInput) as raised:
        convert(at_bound, past, chunking=three)
    assert raised.value.errors == [
        FieldError("events[1].text", "too long: 4 chunks of 10 words, at most 3 per entry")
    ]


def test_one_long_text_at_the_wire_limit_fits_the_default_bound_unless_degenerate() -> None:
    prose = ("deployment rollback decided after the outage review " * 20_000)[:1_000_000]
    assert len(convert(wire.Event(text=prose, tier="A"))) == 1
    with pytest.raises(InvalidInput) as raised:
        convert(wire.Event(text="a " * 500_000, tier="A"))
    assert fields_of(raised) == ["events[0].text"]


def test_missing_ids_come_from_the_id_factory_in_order() -> None:
    entries = convert(wire.Event(text="one", tier="E"), wire.Event(text="two", tier="E"))
    assert [e.id for e in entries] == ["gen-1", "gen-2"]


def test_missing_timestamp_is_now() -> None:
    assert convert(wire.Event(text="x", tier="E"))[0].timestamp == NOW


def test_naive_timestamp_is_utc() -> None:
    [entry] = convert(wire.Event(text="x", tier="E", timestamp="2024-01-02T03:04:05"))
    assert entry.timestamp == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp()


def test_z_suffix_is_utc() -> None:
    [entry] = convert(wire.Event(text="x", tier="E", timestamp="2024-01-02T03:04:05Z"))
    assert entry.timestamp == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp()


def test_the_epoch_itself_is_a_valid_timestamp() -> None:
    [entry] = convert(wire.Event(text="x", tier="E", timestamp="1970-01-01T00:00:00Z"))
    assert entry.timestamp == 0.0


def test_tier_c_expires_from_its_timestamp() -> None:
    policy = ExpiryPolicy(c_ttl_days=7, ttl_by_chain_type={"standup": 2})
    plain, standup, own = convert(
        wire.Event(text="x", tier="C"),
        wire.Event(text="x", tier="C", chain_type="standup"),
        wire.Event(text="x", tier="C", chain_type="standup", ttl_days=0.5),
        policy=policy,
    )
    assert plain.expires_at == NOW + 7 * DAY
    assert standup.expires_at == NOW + 2 * DAY
    assert own.expires_at == NOW + 0.5 * DAY


def test_bad_timestamp_names_its_event() -> None:
    with pytest.raises(InvalidInput) as raised:
        convert(
            wire.Event(text="x", tier="E"), wire.Event(text="y", tier="E", timestamp="yesterday")
        )
    assert fields_of(raised) == ["events[1].timestamp"]
    assert "yesterday" in raised.value.errors[0].message


def test_every_bad_field_of_the_batch_is_reported() -> None:
    with pytest.raises(InvalidInput) as raised:
        convert(
            wire.Event(text="   ", tier="A"),
            wire.Event(text="ok", tier="E"),
            wire.Event(text="ok", tier="A", ttl_days=3, timestamp="not a time"),
            wire.Event(text="ok", tier="C", timestamp="9999-12-30T00:00:00Z"),
        )
    assert fields_of(raised) == [
        "events[0].text",
        "events[2].timestamp",
        "events[2].ttl_days",
        "events[3].timestamp",
    ]
    assert "events[2].ttl_days" in raised.value.detail


@pytest.mark.parametrize("tier", ["A", "E"])
def test_ttl_days_only_for_tier_c(tier: Tier) -> None:
    with pytest.raises(InvalidInput) as raised:
        convert(wire.Event(text="x", tier=tier, ttl_days=1))
    assert raised.value.errors == [FieldError("events[0].ttl_days", "only tier C entries expire")]


def test_metadata_is_bounded_by_the_wire_schema() -> None:
    def event(metadata: dict[str, object]) -> wire.Event:
        return msgspec.convert({"text": "x", "tier": "E", "metadata": metadata}, wire.Event)

    assert convert(event({"blob": "x" * 10_000, "k" * 200: 1}))
    bad_metadata: list[dict[str, object]] = [
        {"blob": "x" * 10_001},
        {"": 1},
        {"k" * 201: 1},
        {f"k{n}": n for n in range(65)},
    ]
    for bad in bad_metadata:
        with pytest.raises(msgspec.ValidationError):
            event(bad)


@pytest.mark.parametrize(
    ("timestamp", "ttl_days", "field"),
    [
        ("9999-12-31T23:59:59-00:01", None, "events[0].timestamp"),
        ("0001-01-01T00:00:00+00:01", None, "events[0].timestamp"),
        ("1969-12-31T23:59:59Z", None, "events[0].timestamp"),
        ("9999-12-30T00:00:00Z", None, "events[0].timestamp"),
        ("9999-12-01T00:00:00Z", 36_500, "events[0].ttl_days"),
    ],
)
def test_times_outside_the_supported_range_are_refused(
    timestamp: str, ttl_days: float | None, field: str
) -> None:
    with pytest.raises(InvalidInput) as raised:
        convert(wire.Event(text="x", tier="C", timestamp=timestamp, ttl_days=ttl_days))
    assert fields_of(raised) == [field]


def test_the_edges_of_the_supported_range_are_accepted() -> None:
    first, last = convert(
        wire.Event(text="x", tier="E", timestamp="1970-01-01T00:00:00Z"),
        wire.Event(text="y", tier="E", timestamp="9999-12-31T23:59:59Z"),
    )
    assert (first.timestamp, last.timestamp) == (0.0, 253_402_300_799.0)


def test_duplicate_id_in_a_batch_names_the_second() -> None:
    with pytest.raises(InvalidInput) as raised:
        convert(
            wire.Event(text="x", tier="E", id="dup"),
            wire.Event(text="y", tier="E", id="other"),
            wire.Event(text="z", tier="E", id="dup"),
        )
    assert fields_of(raised) == ["events[2].id"]
    assert "'dup'" in raised.value.errors[0].message


def test_same_id_in_different_namespaces_is_fine() -> None:
    entries = convert(
        wire.Event(text="x", tier="E", id="1", namespace="a"),
        wire.Event(text="y", tier="E", id="1", namespace="b"),
    )
    assert [e.key for e in entries] == ["a:1", "b:1"]


def test_namespace_check_names_the_event() -> None:
    seen: list[tuple[str | None, str]] = []

    def only_team(namespace: str | None, field: str) -> str:
        seen.append((namespace, field))
        if namespace != "team":
            raise Forbidden(f"{field}: not yours")
        return namespace

    with pytest.raises(Forbidden, match=r"events\[1\]\.namespace"):
        convert(
            wire.Event(text="x", tier="E", namespace="team"),
            wire.Event(text="x", tier="E", namespace="other"),
            namespace=only_team,
        )
    assert seen == [("team", "events[0].namespace"), ("other", "events[1].namespace")]


FLOOR = 0.05
"""The service's relevance floor, as STRATA_MIN_SCORE would set it."""


def search(**fields: Any) -> wire.SearchRequest:
    return wire.SearchRequest(**{"query": "tea", **fields})


def test_query_defaults_search_every_tier_of_the_namespace() -> None:
    q = to_query(search(), namespace="team", now=NOW, floor=FLOOR)
    assert q.text == "tea"
    assert (q.mode, q.limit, q.explain) == ("auto", 10, False)
    assert q.filters.namespace == "team"
    assert q.filters.tiers == ("A", "C", "E")
    assert q.filters.now == NOW
    assert (q.filters.since, q.filters.until) == (None, None)


def test_query_takes_the_service_floor_unless_the_request_names_a_min_score() -> None:
    assert to_query(search(), namespace="ns", now=NOW, floor=FLOOR).min_score == FLOOR
    asked = to_query(search(min_score=0.3), namespace="ns", now=NOW, floor=FLOOR)
    assert asked.min_score == 0.3
    off = to_query(search(min_score=0), namespace="ns", now=NOW, floor=FLOOR)
    assert off.min_score == 0.0


def test_query_carries_every_filter() -> None:
    q = to_query(
        search(
            tiers=["E", "A"],
            mode="bm25",
            limit=3,
            speaker="ann",
            chain_type="standup",
            tags=["ops"],
            since="2024-01-01T00:00:00",
            until="2024-02-01T00:00:00Z",
            include_archived=True,
            explain=True,
        ),
        namespace="ns",
        now=NOW,
        floor=FLOOR,
    )
    assert q.filters.tiers == ("A", "E")
    assert (q.mode, q.limit, q.explain) == ("bm25", 3, True)
    assert (q.filters.speaker, q.filters.chain_type, q.filters.tags) == ("ann", "standup", ("ops",))
    assert q.filters.since == datetime(2024, 1, 1, tzinfo=UTC).timestamp()
    assert q.filters.until == datetime(2024, 2, 1, tzinfo=UTC).timestamp()
    assert q.filters.include_archived


def test_since_after_until_is_an_error_on_until() -> None:
    with pytest.raises(InvalidInput) as raised:
        to_query(
            search(since="2024-02-01", until="2024-01-01"), namespace="ns", now=NOW, floor=FLOOR
        )
    assert fields_of(raised) == ["until"]


def test_since_equal_to_until_is_fine() -> None:
    q = to_query(
        search(since="2024-02-01", until="2024-02-01"), namespace="ns", now=NOW, floor=FLOOR
    )
    assert q.filters.since == q.filters.until


def test_blank_query_and_bad_times_are_reported_together() -> None:
    with pytest.raises(InvalidInput) as raised:
        to_query(
            search(query="  ", since="soon", until="later"), namespace="ns", now=NOW, floor=FLOOR
        )
    assert fields_of(raised) == ["query", "since", "until"]


def test_parse_time_records_the_field_and_returns_none() -> None:
    errors: list[FieldError] = []
    assert parse_time("2024-13-01", "since", errors) is None
    assert [e.field for e in errors] == ["since"]


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.0, "1970-01-01T00:00:00Z"),
        (datetime(2024, 5, 1, 12, 0, tzinfo=UTC).timestamp(), "2024-05-01T12:00:00Z"),
        (1_700_000_000.25, "2023-11-14T22:13:20.250000Z"),
    ],
)
def test_format_time_is_utc_ending_in_z(seconds: float, text: str) -> None:
    assert format_time(seconds) == text


def test_format_time_of_nothing_is_nothing() -> None:
    assert format_time(None) is None


def test_formatted_time_parses_back_to_the_same_instant() -> None:
    errors: list[FieldError] = []
    assert parse_time(format_time(1_700_000_000.5) or "", "t", errors) == 1_700_000_000.5
    assert errors == []
