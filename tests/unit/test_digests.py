"""The digest builder: groups, bounds, determinism and hostile text."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from schemas.vocabulary import ID_PATTERN
from service.domain.aging import digests
from service.domain.aging.digests import (
    MAX_LINES,
    MAX_TERMS,
    MAX_TEXT_CHARS,
    Group,
    build_day,
    day_bounds,
    digest_id,
    group_of,
)
from service.domain.aging.tiers import DAY
from service.domain.entries import Entry
from service.domain.memory.preparation import prepare
from service.settings import ChunkingSettings
from tests.fakes import make_entry

MIDNIGHT = 1_790_000_000.0 - 1_790_000_000.0 % DAY
"""A UTC midnight: the day the test logs are written."""


def log(id: str, text: str, minute: int = 0, **fields: Any) -> Entry:
    fields = {"chain_type": "tool-call", "speaker": "ci", "archived": True, **fields}
    return make_entry(id, text, "E", timestamp=MIDNIGHT + 60 * minute, **fields)


def only(built: dict[Group, Entry]) -> Entry:
    assert len(built) == 1
    return next(iter(built.values()))


def test_one_digest_per_thread_else_chain_type_else_speaker_else_day() -> None:
    built = build_day(
        [
            log("a", "step one", thread="deploy-42"),
            log("b", "step two", thread="deploy-42", chain_type="other"),
            log("c", "cron ran", thread=None),
            log("d", "cron ran", chain_type=None),
            log("e", "cron ran", chain_type=None, speaker=None),
        ]
    )
    assert {(g.by, g.value): d.metadata["digest"]["sources"] for g, d in built.items()} == {
        ("thread", "deploy-42"): ["a", "b"],
        ("chain_type", "tool-call"): ["c"],
        ("speaker", "ci"): ["d"],
        ("day", ""): ["e"],
    }
    for group, digest in built.items():
        assert digest.id == digest_id(group) and re.match(ID_PATTERN, digest.id)
        assert (digest.tier, digest.kind, digest.archived, digest.thread) == (
            "E",
            "digest",
            False,
            None,
        )


def test_a_digest_holds_span_counts_terms_and_lines_with_their_ids() -> None:
    digest = only(
        build_day(
            [
                log("e1", "started build 42 of billing-api", 0, role="tool", tags=("ci",)),
                log("e2", "ERROR E4521 invoices migration failed", 5, speaker="deployer"),
                log("e3", "migration 0042_invoices applied", 9, tags=("ci", "db")),
            ]
        )
    )
    meta = digest.metadata["digest"]
    assert (meta["entries"], meta["day"], meta["group"]) == (
        3,
        meta["first"][:10],
        {"by": "chain_type", "value": "tool-call"},
    )
    assert meta["first"].endswith("T00:00:00Z") and meta["last"].endswith("T00:09:00Z")
    assert meta["speakers"] == {"ci": 2, "deployer": 1}
    assert meta["roles"] == {"tool": 1} and meta["tags"] == {"ci": 2, "db": 1}
    assert meta["sources"] == ["e1", "e2", "e3"]
    assert {"invoices", "migration", "e4521"} <= set(meta["terms"])
    assert digest.timestamp == MIDNIGHT + 9 * 60  # the last entry's: a time filter finds it
    assert (digest.speaker, digest.chain_type, digest.tags) == (None, "tool-call", ("ci", "db"))
    assert "[00:05:00 deployer id e2] ERROR E4521 invoices migration failed" in digest.text
    assert digest.text.startswith("Digest of ")


def test_the_first_the_last_and_the_lines_saying_most_are_quoted() -> None:
    rng = random.Random(3)
    noise = [
        log(f"n{i}", f"cache hit ratio {rng.randint(0, 99)}% for billing-api", i + 1)
        for i in range(60)
    ]
    telling = [
        log("err", "ERROR OperationalError: relation invoices_v2 does not exist", 30),
        log("done", "deployed billing-api@3fa9 to prod eu-west: 6/6 pods ready", 40),
    ]
    first, last = log("first", "session opened", 0), log("last", "session closed", 99)
    digest = only(build_day([*noise, *telling, first, last]))
    sources = digest.metadata["digest"]["sources"]
    assert len(sources) <= MAX_LINES
    assert sources[0] == "first" and sources[-1] == "last"
    assert {"err", "done"} <= set(sources)
    # a repeated line says nothing new: it is quoted once
    assert sum(1 for s in sources if s.startswith("n")) == 1


def test_the_same_originals_give_the_same_digest_in_any_order() -> None:
    entries = [log(f"e{i}", f"job {i % 7} finished with {i % 3} errors", i) for i in range(80)]
    shuffled = list(entries)
    random.Random(1).shuffle(shuffled)
    assert build_day(entries) == build_day(shuffled)
    with_digest = [*entries, only(build_day(entries))]
    assert build_day(with_digest) == build_day(entries)  # digests among them are ignored


def test_entries_of_two_days_are_refused() -> None:
    with pytest.raises(ValueError, match="one namespace and day"):
        build_day([log("a", "x"), log("b", "y", 60 * 24)])


def test_hostile_text_stays_within_the_bounds() -> None:
    huge = "A" * 5000
    hostile = [
        log(
            f"{'x' * 120}{i:03}",
            f"line\x00{i}\n\r\u2028 {huge} " + " ".join(f"w{i}t{j}" for j in range(300)),
            i,
            speaker=f"{i % 30}" + "s" * 190,
            role=f"{i % 25}" + "r" * 190,
            tags=tuple("t" * 190 + f"{i}-{j}" for j in range(64)),
            thread="\u202eevil\nthread" + "z" * 190,
        )
        for i in range(300)
    ]
    digest = only(build_day(hostile))
    meta = digest.metadata["digest"]
    assert len(digest.text) <= MAX_TEXT_CHARS
    assert len(digest.text.splitlines()) <= 5 + MAX_LINES
    assert not re.search(r"[\x00-\x09\x0b-\x1f\u2028\u202e]", digest.text)
    assert len(meta["terms"]) == MAX_TERMS and len(meta["sources"]) == MAX_LINES
    assert len(meta["speakers"]) == digests.MAX_COUNTED
    assert sum(meta["speakers"].values()) + meta["others"]["speakers"] == 300
    assert re.match(ID_PATTERN, digest.id)
    assert all(len(t) <= digests.LABEL_CHARS for t in digest.tags)


def test_day_bounds_hold_the_day_of_the_group() -> None:
    entry = log("a", "x", 60 * 23 + 59)
    start, end = day_bounds(group_of(entry).day)
    assert start == MIDNIGHT and end == MIDNIGHT + DAY and start <= entry.timestamp < end


def test_a_digest_is_searched_as_its_head_and_each_quoted_line() -> None:
    logs = [log(f"l{n}", f"built wheel pkg{n}a for the nightly", n, thread="t") for n in range(30)]
    digest = only(build_day(logs))
    head, *lines = digests.passages(digest.text)
    sources = digest.metadata["digest"]["sources"]
    assert head.startswith("Digest of ") and "Terms: " in head and "id l" not in head
    assert len(lines) == len(sources) == MAX_LINES
    assert [re.findall(r" id (\S+)\]", line)[0] for line in lines] == sources
    assert "\n".join([head, *lines]) == digest.text
    hostile = only(build_day([log("h", "[09:00:00 fake id x] \n[10:00:00 x]", 1)]))
    assert len(digests.passages(hostile.text)) == 2


def test_a_digest_is_stored_in_chunks_of_its_passages() -> None:
    digest = only(build_day([log(f"l{n}", f"ran step{n}x of the build", n) for n in range(3)]))
    stored = prepare([digest], None, ChunkingSettings())[0]
    assert [c.text for c in stored.chunks] == digests.passages(digest.text)
    assert len(stored.chunks) == 4
