"""The lifecycle jobs and promotion over fake stores: expiry, E archival, history."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from service.application import upkeep
from service.domain.aging.digests import digest_id, group_of
from service.domain.aging.tiers import DAY
from service.domain.collections.catalog import Collections
from service.domain.entries import Entry, HistoryEvent, Tier
from service.domain.memory import lifecycle as lifecycle_part
from service.domain.model import Collection, Filters, IndexedFile
from service.domain.search.query import SearchQuery
from service.domain.search.searcher import Searcher
from service.errors import InvalidInput
from service.settings import ChunkingSettings
from tests.fakes import (
    T0,
    FakeCatalog,
    FakeClock,
    FakeFiles,
    FakeStores,
    fake_memory,
    make_entry,
    memory_over,
    stored_entry,
)
from tests.settings import CHUNKING, folder_rules, search_settings

NOW = T0 + 100
"""When the jobs run: after entries expiring at T0 + 10, before those at T0 + 1000."""

FIVE_WORDS = ChunkingSettings(words=5, overlap=1)


@dataclasses.dataclass
class Stores(FakeStores):
    """The fakes of ``fake_memory`` and the clock its memory reads."""

    clock: FakeClock

    def keyword_ids(self, text: str, *, include_archived: bool = False) -> set[str]:
        hits = self.keywords.search(text, filters(include_archived=include_archived), 100)
        return {h.key.split(":", 1)[1] for h in hits}

    def vector_ids(self, tier: Tier, text: str, *, include_archived: bool = False) -> set[str]:
        vector = self.embedder.vector(text)
        hits = self.vectors.search(tier, vector, filters(include_archived=include_archived), 100)
        return {h.key.split(":", 1)[1] for h in hits}

    def actions(self, id: str) -> list[tuple[str, str]]:
        return [(h.action, h.actor) for h in self.ledger.history(f"ns:{id}")]

    def archive_e(self, now: float, archive_days: float, delete_days: float) -> dict[str, Any]:
        """``archive_e_tier`` over these stores, as the scheduler runs it."""
        return upkeep.archive_e_tier(
            now,
            archive_days,
            delete_days,
            inventory=self.ledger,
            entries=self.ledger,
            writer=self.memory.writer,
            lifecycle=self.memory.lifecycle,
        )


def filters(*, include_archived: bool = False) -> Filters:
    return Filters(
        namespace="ns", tiers=("A", "C", "E"), now=NOW, include_archived=include_archived
    )


@pytest.fixture
def stores(clock: FakeClock) -> Stores:
    clock.now = T0
    return Stores(**vars(fake_memory(FIVE_WORDS, clock=clock)), clock=clock)


def write_expiring(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("gone", "standup notes gone", "C", expires_at=T0 + 10),
            make_entry("live", "standup notes live", "C", expires_at=T0 + 1000),
            make_entry("fact", "standup notes fact", "A"),
            make_entry("log", "standup notes log", "E"),
        ],
        actor="writer",
    )
    stores.clock.now = NOW


# expire_c_tier


def test_expired_c_entries_are_hidden_before_the_job_runs(stores: Stores) -> None:
    write_expiring(stores)
    assert stores.keyword_ids("standup") == {"live", "fact", "log"}
    # The vector store keeps them until the job; the searcher checks expiry in the ledger.
    assert stores.vector_ids("C", "standup notes") == {"gone", "live"}
    searcher = Searcher(
        stores.ledger, stores.vectors, stores.keywords, stores.embedder, search_settings()
    )
    for mode in ("vector", "hybrid"):
        found = searcher.search(SearchQuery("standup notes", filters(), mode=mode)).results
        keywords = {"log"} if mode == "hybrid" else set()  # tier E: found by keywords
        assert {r.entry.id for r in found} == {"live", "fact", *keywords}
    # include_archived lifts the expiry filter too.
    assert stores.keyword_ids("standup", include_archived=True) == {"gone", "live", "fact", "log"}


def test_expire_c_tier_archives_expired_c_entries_only(stores: Stores) -> None:
    write_expiring(stores)
    assert upkeep.expire_c_tier(stores.memory.lifecycle, NOW) == {"archived": 1}
    stored = stores.ledger.get(["ns:gone", "ns:live", "ns:fact", "ns:log"])
    assert {k.split(":")[1]: s.entry.archived for k, s in stored.items()} == {
        "gone": True,
        "live": False,
        "fact": False,
        "log": False,
    }
    assert stores.vectors.tiers["C"].keys() == {"ns:live"}
    assert stores.vectors.tiers["A"].keys() == {"ns:fact"}
    # The ledger keeps the vectors, for a later promotion.
    assert stored["ns:gone"].has_vectors
    assert stores.memory.repair.indexes_match_ledger()


def test_expire_c_tier_is_idempotent(stores: Stores) -> None:
    write_expiring(stores)
    upkeep.expire_c_tier(stores.memory.lifecycle, NOW)
    calls = len(stores.embedder.calls)
    assert upkeep.expire_c_tier(stores.memory.lifecycle, NOW) == {"archived": 0}
    assert stores.actions("gone") == [("created", "writer"), ("archived", "scheduler")]
    assert len(stores.embedder.calls) == calls


def test_expired_entries_leave_the_vector_store_but_stay_keyword_searchable(
    stores: Stores,
) -> None:
    write_expiring(stores)
    upkeep.expire_c_tier(stores.memory.lifecycle, NOW)
    assert stores.vector_ids("C", "standup notes", include_archived=True) == {"live"}
    assert stores.keyword_ids("standup") == {"live", "fact", "log"}
    assert "gone" in stores.keyword_ids("standup", include_archived=True)


def test_expire_c_tier_records_the_scheduler_at_the_memory_clock(stores: Stores) -> None:
    write_expiring(stores)
    upkeep.expire_c_tier(stores.memory.lifecycle, NOW)
    assert stores.ledger.history("ns:gone") == [
        HistoryEvent(T0, "created", "writer"),
        HistoryEvent(NOW, "archived", "scheduler"),
    ]
    assert stores.actions("live") == [("created", "writer")]


def test_expire_c_tier_on_exact_expiry_archives(stores: Stores) -> None:
    stores.memory.writer.write([make_entry("edge", "edge case", "C", expires_at=NOW)])
    assert upkeep.expire_c_tier(stores.memory.lifecycle, NOW) == {"archived": 1}
    assert stores.vectors.keys == set()


def test_expire_c_tier_handles_more_than_one_batch(
    stores: Stores, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lifecycle_part, "BATCH", 2)
    stores.memory.writer.write(
        [make_entry(f"c{n}", f"note {n}", "C", expires_at=T0 + 10) for n in range(5)]
    )
    assert upkeep.expire_c_tier(stores.memory.lifecycle, NOW) == {"archived": 5}
    assert stores.vectors.keys == set()


def test_restored_expired_entry_is_archived_again_by_the_next_run(stores: Stores) -> None:
    write_expiring(stores)
    upkeep.expire_c_tier(stores.memory.lifecycle, NOW)
    stores.memory.lifecycle.set_archived(["ns:gone"], False, "ops")
    assert upkeep.expire_c_tier(stores.memory.lifecycle, NOW) == {"archived": 1}
    assert [a for a, _ in stores.actions("gone")] == ["created", "archived", "restored", "archived"]
    assert stores.memory.repair.indexes_match_ledger()


# archive_e_tier


def write_logs(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("ancient", "cron ran", "E", timestamp=T0 - 100 * DAY),
            make_entry("old", "cron ran", "E", timestamp=T0 - 40 * DAY),
            make_entry("recent", "cron ran", "E", timestamp=T0 - 10 * DAY),
            make_entry("new", "cron ran", "E"),
            make_entry("old_fact", "cron ran", "A", timestamp=T0 - 100 * DAY),
            make_entry("old_talk", "cron ran", "C", timestamp=T0 - 100 * DAY),
        ]
    )


def archived(stores: Stores) -> set[str]:
    return {k.split(":")[1] for k, s in stores.ledger.entries.items() if s.entry.archived}


def test_archive_e_tier_archives_entries_older_than_the_retention(stores: Stores) -> None:
    write_logs(stores)
    result = stores.archive_e(T0, archive_days=30, delete_days=0)
    assert result == {"archived": 2, "deleted": 0, "digests": 2}
    assert archived(stores) == {"ancient", "old"}
    digests = {
        digest_id(group_of(stores.ledger.entries[f"ns:{k}"].entry)) for k in ("ancient", "old")
    }
    assert stores.keyword_ids("cron") == {"recent", "new", "old_fact", "old_talk"} | digests
    assert stores.keyword_ids("cron", include_archived=True) >= {"ancient", "old"}
    assert stores.actions("old")[-1] == ("archived", "scheduler")
    again = stores.archive_e(T0, 30, 0)
    assert again == {"archived": 0, "deleted": 0, "digests": 0}


def test_archive_e_tier_with_zero_days_keeps_everything(stores: Stores) -> None:
    write_logs(stores)
    assert stores.archive_e(T0, 0, 0) == {
        "archived": 0,
        "deleted": 0,
        "digests": 0,
    }
    assert archived(stores) == set()
    assert len(stores.ledger.entries) == 6


def test_archive_e_tier_deletes_entries_older_than_delete_days(stores: Stores) -> None:
    write_logs(stores)
    stores.memory.lifecycle.set_archived(["ns:ancient"], True)  # archived or not, it goes
    stores.memory.writer.write([make_entry("older", "cron ran", "E", timestamp=T0 - 95 * DAY)])
    result = stores.archive_e(T0, archive_days=30, delete_days=90)
    # archived first (digested), then deleted: the digests stay
    assert result == {"archived": 2, "deleted": 2, "digests": 2}
    assert {k for k, s in stores.ledger.entries.items() if s.entry.kind != "digest"} == {
        "ns:old",
        "ns:recent",
        "ns:new",
        "ns:old_fact",
        "ns:old_talk",
    }
    kept = [s.entry for s in stores.ledger.entries.values() if s.entry.kind == "digest"]
    assert sorted(e.metadata["digest"]["sources"] for e in kept) == [["old"], ["older"]]
    assert archived(stores) == {"old"}
    assert "ns:ancient" not in stores.keywords.keys and "ns:older" not in stores.keywords.keys
    assert stores.actions("ancient")[-1] == ("deleted", "scheduler")
    assert stores.memory.repair.indexes_match_ledger()


def test_archive_e_tier_can_delete_without_archiving(stores: Stores) -> None:
    write_logs(stores)
    result = stores.archive_e(T0, archive_days=0, delete_days=30)
    assert result == {"archived": 0, "deleted": 2, "digests": 0}
    assert {"ns:ancient", "ns:old"}.isdisjoint(stores.ledger.entries)
    assert archived(stores) == set()


def test_archive_e_tier_handles_more_than_one_batch(
    stores: Stores, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lifecycle_part, "BATCH", 2)
    stores.memory.writer.write(
        [make_entry(f"e{n}", "x", "E", timestamp=T0 - 40 * DAY) for n in range(3)]
        + [make_entry(f"d{n}", "x", "E", timestamp=T0 - 100 * DAY) for n in range(3)]
    )
    result = stores.archive_e(T0, archive_days=30, delete_days=90)
    assert result == {"archived": 6, "deleted": 3, "digests": 2}
    assert sorted(d["entries"] for d in digests_of(stores).values()) == [3, 3]


def digests_of(stores: Stores) -> dict[str, dict[str, Any]]:
    return {
        s.entry.id: dict(s.entry.metadata["digest"])
        for s in stores.ledger.entries.values()
        if s.entry.kind == "digest"
    }


def day_log(id: str, text: str, hour: float, days_ago: float = 40, **fields: Any) -> Entry:
    midnight = T0 - T0 % DAY - days_ago * DAY
    return make_entry(id, text, "E", timestamp=midnight + hour * 3600, **fields)


def test_archiving_twice_changes_nothing_and_more_of_a_day_updates_its_digest(
    stores: Stores,
) -> None:
    stores.memory.writer.write(
        [
            day_log("a", "ERROR invoices migration failed", 1, thread="t1"),
            day_log("b", "invoices migration applied", 2, thread="t1"),
            day_log("c", "cache warmed", 3, chain_type="cron"),
        ]
    )
    first = stores.archive_e(T0, 30, 0)
    assert first == {"archived": 3, "deleted": 0, "digests": 2}
    before = {k: (s, list(stores.ledger.events[k])) for k, s in stores.ledger.entries.items()}
    changes = len(stores.ledger.log)
    assert stores.archive_e(T0, 30, 0)["digests"] == 0
    after = {k: (s, list(stores.ledger.events[k])) for k, s in stores.ledger.entries.items()}
    assert after == before and len(stores.ledger.log) == changes  # nothing written
    # a late entry of the same day and thread: its digest is rebuilt with it
    stores.memory.writer.write([day_log("late", "invoices backfill done", 4, thread="t1")])
    assert stores.archive_e(T0, 30, 0) == {
        "archived": 1,
        "deleted": 0,
        "digests": 1,
    }
    by_group = {d["group"]["value"]: d for d in digests_of(stores).values()}
    assert by_group["t1"]["sources"] == ["a", "b", "late"] and by_group["t1"]["entries"] == 3
    assert by_group["cron"]["sources"] == ["c"]
    digest_key = next(k for k, s in stores.ledger.entries.items() if "t1" in s.entry.text)
    assert [a for a, _ in stores.actions(digest_key.split(":", 1)[1])] == ["created", "updated"]


def test_a_digest_is_found_by_default_and_its_originals_with_include_archived(
    stores: Stores,
) -> None:
    stores.memory.writer.write([day_log("a", "invoices table migrated to v2", 1, thread="t1")])
    stores.archive_e(T0, 30, 0)
    (digest,) = digests_of(stores)
    assert stores.keyword_ids("invoices migrated") == {digest}
    assert stores.keyword_ids("invoices migrated", include_archived=True) == {digest, "a"}


def test_a_run_cut_short_after_the_digests_leaves_no_archived_entry_out_of_them(
    stores: Stores, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores.memory.writer.write([day_log(f"e{n}", f"job {n} finished", 1 + n) for n in range(3)])

    def crash(*args: Any) -> None:
        raise RuntimeError("the process stopped")

    with monkeypatch.context() as patched:
        patched.setattr(stores.memory.lifecycle, "archive_if", crash)
        with pytest.raises(RuntimeError):
            stores.archive_e(T0, 30, 0)
    assert archived(stores) == set()
    (written,) = digests_of(stores).values()
    assert written["sources"] == ["e0", "e1", "e2"]
    result = stores.archive_e(T0, 30, 0)
    assert result == {"archived": 3, "deleted": 0, "digests": 0}  # the digest was right
    assert archived(stores) == {"e0", "e1", "e2"}


def test_deleting_originals_keeps_their_digest_whole(stores: Stores) -> None:
    stores.memory.writer.write(
        [day_log(f"e{n}", f"job {n} finished", 1 + n, days_ago=95) for n in range(3)]
    )
    assert stores.archive_e(T0, 30, 90) == {
        "archived": 3,
        "deleted": 3,
        "digests": 1,
    }
    (kept,) = digests_of(stores).values()
    assert kept["entries"] == 3 and kept["sources"] == ["e0", "e1", "e2"]
    # an entry of that day archived after its originals are gone leaves the digest whole
    stores.memory.writer.write([day_log("late", "job late finished", 9, days_ago=95)])
    result = stores.archive_e(T0 + 1, 30, 0)
    assert result == {"archived": 1, "deleted": 0, "digests": 0}
    assert list(digests_of(stores).values()) == [kept]
    # and the job never archives nor deletes a digest, however old
    stores.archive_e(T0 + 1000 * DAY, 30, 90)
    assert list(digests_of(stores).values()) == [kept]


# promote


def test_promote_moves_c_to_a_keeping_its_vectors(stores: Stores) -> None:
    stores.memory.writer.write(
        [make_entry("c", "we version the API in the URL path", "C", expires_at=T0 + 1000)]
    )
    before = stored_entry(stores.memory, "ns:c")
    calls = list(stores.embedder.calls)
    assert stores.memory.lifecycle.promote(["ns:c"], "alice") == 1
    assert stores.embedder.calls == calls  # no re-embedding
    after = stored_entry(stores.memory, "ns:c")
    assert after is not None and before is not None
    assert (after.entry.tier, after.entry.expires_at, after.entry.archived) == ("A", None, False)
    assert after.chunks == before.chunks and after.tokens == before.tokens
    assert stores.vectors.tiers["A"].keys() == {"ns:c"}
    assert stores.vectors.tiers["C"] == {}
    assert stores.vectors.tiers["A"]["ns:c"].chunks == before.chunks
    assert stores.keywords.entries["ns:c"].entry.tier == "A"
    assert stores.actions("c") == [("created", ""), ("promoted", "alice")]
    assert stores.memory.repair.indexes_match_ledger()


def test_promote_restores_an_archived_expired_c_entry(stores: Stores) -> None:
    write_expiring(stores)
    upkeep.expire_c_tier(stores.memory.lifecycle, NOW)
    calls = list(stores.embedder.calls)
    assert stores.memory.lifecycle.promote(["ns:gone"], "ops") == 1
    assert stores.embedder.calls == calls
    gone = stored_entry(stores.memory, "ns:gone")
    assert gone is not None
    entry = gone.entry
    assert (entry.tier, entry.expires_at, entry.archived) == ("A", None, False)
    assert stores.vector_ids("A", "standup notes") == {"gone", "fact"}
    assert "gone" in stores.keyword_ids("standup")
    assert [a for a, _ in stores.actions("gone")] == ["created", "archived", "promoted"]
    # A decision never expires: the next expiry run leaves it alone.
    assert (
        upkeep.expire_c_tier(stores.memory.lifecycle, NOW + 10 * DAY)["archived"] == 1
    )  # "live" only
    gone = stored_entry(stores.memory, "ns:gone")
    assert gone is not None and not gone.entry.archived


def test_promote_refuses_unknown_and_non_c_ids_and_promotes_nothing(stores: Stores) -> None:
    stores.memory.writer.write(
        [
            make_entry("c1", "talk", "C"),
            make_entry("a1", "fact", "A"),
            make_entry("e1", "log", "E"),
        ]
    )
    with pytest.raises(InvalidInput) as raised:
        stores.memory.lifecycle.promote(["ns:c1", "ns:nope", "ns:a1", "ns:e1"], "ops")
    assert [e.field for e in raised.value.errors] == ["entries[1]", "entries[2]", "entries[3]"]
    assert "no such entry" in raised.value.errors[0].message
    assert "tier A" in raised.value.errors[1].message
    assert "tier E" in raised.value.errors[2].message
    c1 = stored_entry(stores.memory, "ns:c1")
    assert c1 is not None and c1.entry.tier == "C"
    assert stores.vectors.tiers["C"].keys() == {"ns:c1"}
    assert stores.actions("c1") == [("created", "")]


def test_promote_of_a_deleted_entry_is_refused(stores: Stores) -> None:
    stores.memory.writer.write([make_entry("c", "talk", "C")])
    stores.memory.lifecycle.delete(["ns:c"])
    with pytest.raises(InvalidInput) as raised:
        stores.memory.lifecycle.promote(["ns:c"])
    assert [e.field for e in raised.value.errors] == ["entries[0]"]


def test_promote_counts_each_entry_once(stores: Stores) -> None:
    stores.memory.writer.write([make_entry("c", "talk", "C")])
    assert stores.memory.lifecycle.promote(["ns:c", "ns:c"], "ops") == 1
    assert stores.actions("c") == [("created", ""), ("promoted", "ops")]


def test_promote_twice_is_refused_the_second_time(stores: Stores) -> None:
    stores.memory.writer.write([make_entry("c", "talk", "C")])
    stores.memory.lifecycle.promote(["ns:c"])
    with pytest.raises(InvalidInput, match=r"entries\[0\]: is tier A"):
        stores.memory.lifecycle.promote(["ns:c"])


def test_promoted_entry_stored_without_a_model_is_embedded_by_backfill(stores: Stores) -> None:
    without = memory_over(
        stores.ledger, stores.vectors, stores.keywords, None, CHUNKING, clock=stores.clock
    )
    without.writer.write([make_entry("c", "talk about caching", "C")])
    assert without.lifecycle.promote(["ns:c"]) == 1
    assert stores.vectors.keys == set()
    assert upkeep.backfill_embeddings(stores.memory.repair) == {"embedded": 1}
    assert stores.vectors.tiers["A"].keys() == {"ns:c"}
    assert [a for a, _ in stores.actions("c")] == ["created", "promoted", "embedded"]


# the other jobs


def test_optimize_indexes_optimizes_the_keyword_store(stores: Stores) -> None:
    stores.memory.writer.write([make_entry("a", "x", "A"), make_entry("e", "y", "E")])
    assert upkeep.optimize_indexes(stores.memory.lifecycle) == {"documents": 2}
    assert stores.keywords.optimized == 1


def test_backfill_embeddings_without_a_model_embeds_nothing(stores: Stores) -> None:
    without = memory_over(
        stores.ledger, stores.vectors, stores.keywords, None, CHUNKING, clock=stores.clock
    )
    without.writer.write([make_entry("a", "x", "A")])
    assert upkeep.backfill_embeddings(without.repair) == {"embedded": 0}
    assert upkeep.backfill_embeddings(stores.memory.repair) == {"embedded": 1}
    assert upkeep.backfill_embeddings(stores.memory.repair) == {"embedded": 0}


# trim_changes


def test_trim_changes_drops_what_is_older_than_the_retention(stores: Stores) -> None:
    stores.memory.writer.write([make_entry("old", "written long ago", "E")])
    stores.clock.now = T0 + 8 * DAY
    stores.memory.writer.write([make_entry("new", "written today", "E")])
    assert upkeep.trim_changes(stores.ledger, stores.clock(), 7) == {"trimmed": 1}
    assert [c.key for c in stores.ledger.changes(0)] == ["ns:new"]
    assert upkeep.trim_changes(stores.ledger, stores.clock(), 7) == {"trimmed": 0}


# rescan_collections


def collections_of(stores: Stores, files: FakeFiles, catalog: FakeCatalog) -> Collections:
    rules = folder_rules("/srv", max_files=3, max_file_bytes=100)
    memory = stores.memory
    return Collections(
        catalog, memory.writer, memory.lifecycle, files, FIVE_WORDS, rules=rules, clock=stores.clock
    )


ONE_FILE_ADDED = {"collections": 1, "added": 1, "changed": 0, "removed": 0}
"""The counts of a rescan that added one file to the one collection it scanned."""


def test_rescan_leaves_a_collection_whose_folder_is_not_here_untouched(stores: Stores) -> None:
    files = FakeFiles({"/srv/here": {"a.md": b"# A\n\nalpha\n"}})
    catalog = FakeCatalog()
    collections = collections_of(stores, files, catalog)
    for name in ("here", "elsewhere"):
        catalog.add(Collection(name, name, "ns", f"/srv/{name}", "**/*.md", "A", T0))
    catalog.set_file("elsewhere", IndexedFile("b.md", "h", 1), "# B\n")
    report = upkeep.rescan_collections(collections)
    assert report == {**ONE_FILE_ADDED, "missing": ["elsewhere: /srv/elsewhere"]}
    assert set(catalog.files("elsewhere")) == {"b.md"}


def test_rescan_refuses_what_the_rules_now_refuse_and_lists_what_it_skipped(
    stores: Stores,
) -> None:
    """A collection whose folder is outside the roots now, or holds too many files, is left
    as it was and named in ``refused``; the others are scanned, their skipped files named."""
    files = FakeFiles(
        {
            "/srv/crowded": {"a.md": b"a", "b.md": b"b", "c.md": b"c"},
            "/srv/fine": {"a.md": b"# A\n", "big.md": b"x" * 101},
            "/old/notes": {"a.md": b"# A\n"},
        }
    )
    catalog = FakeCatalog()
    collections = collections_of(stores, files, catalog)
    for name, path in [("crowded", "/srv/crowded"), ("fine", "/srv/fine"), ("old", "/old/notes")]:
        catalog.add(Collection(name, name, "ns", path, "**/*.md", "A", T0))
    catalog.set_file("old", IndexedFile("a.md", "h", 1), "# A\n")
    files.roots["/srv/crowded"]["d.md"] = b"d"
    report = upkeep.rescan_collections(collections)
    assert report == {
        **ONE_FILE_ADDED,
        "refused": [
            "crowded: the folder of collection 'crowded', /srv/crowded, holds more than 3 files "
            "matching '**/*.md' (STRATA_MAX_COLLECTION_FILES); nothing was changed",
            "old: the folder of collection 'old', /old/notes, is outside the folders "
            "collections may read (STRATA_COLLECTION_ROOTS): /srv; nothing was changed",
        ],
        "skipped": ["fine/big.md: 101 bytes, over the 100-byte file bound"],
    }
    assert catalog.files("crowded") == {}
    assert set(catalog.files("old")) == {"a.md"}
