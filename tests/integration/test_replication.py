"""Replicas over one real ledger (SQLite, Postgres), each with its own Tantivy index and
checkpoint file, kept up by following the change log."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from service.domain.cluster.replication import Follower
from service.domain.model import Filters
from service.domain.ports import Ledger
from service.stores.checkpoint import FileCheckpoint
from service.stores.tantivy import TantivyKeywordStore
from tests.fakes import FakeClock, FakeEmbedder, FakeVectorStore, make_entry, memory_over
from tests.postgres import POSTGRES
from tests.settings import CHUNKING
from tests.stores import durable_opener

DAY = 86_400.0

OpenLedger = Callable[[], Ledger]


@pytest.fixture(params=["sqlite", POSTGRES])
def open_ledger(request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock) -> OpenLedger:
    """Opens the one ledger again, as another process would: a connection of its own."""
    open_stores = durable_opener(request, tmp_path, clock=clock)
    return lambda: open_stores().ledger


class Replica:
    """A process of its own over the shared ledger: its Tantivy index and checkpoint in
    its data directory; vectors go to a store every replica shares."""

    def __init__(
        self, ledger: Ledger, data: Path, vectors: FakeVectorStore, clock: FakeClock
    ) -> None:
        self.ledger = ledger
        self.keywords = TantivyKeywordStore(data / "tantivy")
        self.checkpoint = FileCheckpoint(data / "checkpoint.json")
        self.clock = clock
        self.closed = False
        self.memory = memory_over(
            ledger, vectors, self.keywords, FakeEmbedder(), CHUNKING, clock=clock
        )
        self.follower = Follower(ledger, self.memory.indexes, self.checkpoint)
        self.follower.start_up()

    def find(self, text: str) -> list[str]:
        filters = Filters("ns", ("A", "C", "E"), self.clock())
        return sorted(hit.key for hit in self.keywords.search(text, filters, 10))

    def close(self) -> None:
        """Stop, as the process would (once)."""
        if not self.closed:
            self.keywords.close()
            self.closed = True


@pytest.fixture
def start(
    open_ledger: OpenLedger, tmp_path: Path, clock: FakeClock
) -> Iterator[Callable[[str], Replica]]:
    """Starts a replica on a data directory of ``tmp_path`` (kept when it stops)."""
    vectors = FakeVectorStore()
    started: list[Replica] = []

    def replica(name: str) -> Replica:
        started.append(Replica(open_ledger(), tmp_path / name, vectors, clock))
        return started[-1]

    yield replica
    for r in started:
        r.close()


def test_replicas_see_each_others_writes_deletes_and_promotions(
    start: Callable[[str], Replica],
) -> None:
    one, two = start("one"), start("two")
    one.memory.writer.write(
        [
            make_entry("pg", "we picked postgres for billing"),
            make_entry("sync", "standup: postgres migration today", "C"),
        ]
    )
    two.memory.writer.write([make_entry("log", "postgres replica lag 3s", "E")])
    assert one.find("postgres") == ["ns:pg", "ns:sync"]  # its own, at once
    one.follower.catch_up()
    two.follower.catch_up()
    assert one.find("postgres") == two.find("postgres") == ["ns:log", "ns:pg", "ns:sync"]

    two.memory.lifecycle.delete(["ns:pg"])
    two.memory.lifecycle.promote(["ns:sync"])
    one.follower.catch_up()
    assert one.find("postgres") == ["ns:log", "ns:sync"]
    assert one.find("billing") == []
    tiers = Filters("ns", ("A",), one.clock())
    assert [h.key for h in one.keywords.search("standup", tiers, 10)] == ["ns:sync"]


def test_an_empty_data_directory_rebuilds_and_a_kept_one_catches_up(
    start: Callable[[str], Replica],
) -> None:
    one = start("one")
    one.memory.writer.write([make_entry(str(n), f"note {n} on caching") for n in range(30)])
    one.memory.lifecycle.delete(["ns:7"])
    fresh = start("fresh")
    assert fresh.keywords.count() == 29
    assert fresh.checkpoint.load() == one.ledger.change_bounds().latest
    fresh.close()

    one.memory.writer.write([make_entry("late", "caching, later")])
    again = start("fresh")  # the same data directory, checkpoint and index
    assert again.keywords.count() == 30
    assert again.find("later") == ["ns:late"]


def test_a_checkpoint_below_the_horizon_rebuilds(
    start: Callable[[str], Replica], clock: FakeClock
) -> None:
    """Away longer than the change log keeps: the delete it missed was trimmed, and only a
    rebuild from the ledger takes the entry out of its index."""
    one, away = start("one"), start("away")
    one.memory.writer.write(
        [make_entry("old", "written before"), make_entry("gone", "dropped later")]
    )
    away.follower.catch_up()
    away.close()
    one.memory.lifecycle.delete(["ns:gone"])
    clock.advance(8 * DAY)
    one.memory.writer.write([make_entry("new", "written since")])
    assert one.ledger.trim_changes(clock() - 7 * DAY) > 0
    back = start("away")
    assert back.find("written") == ["ns:new", "ns:old"]
    assert back.find("dropped") == []
