"""The schema as stores open it: a new database is created at the latest migration, one
written by earlier releases upgrades in place with everything it held (SQLite files and a
Postgres database alike), a failing upgrade leaves the database as it was, a newer schema
is refused and replicas starting together migrate once."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import psycopg
import pytest
from alembic import command
from sqlalchemy import create_engine

from service.domain.entries import HistoryEvent, Quarantined, StoredEntry
from service.domain.model import (
    Change,
    Collection,
    Feedback,
    IndexedFile,
    Interaction,
    InteractionResult,
)
from service.stores.durable import FILES, DurableStores, open_postgres, open_sqlite
from service.stores.entry_rows import pack
from service.stores.schema import SchemaTooNew, config_for, head
from tests.fakes import T0, make_entry

LEGACY = Path(__file__).parents[1] / "legacy"

ENTRIES_BEFORE_VERSIONS = (
    "CREATE TABLE entries (key TEXT PRIMARY KEY, id TEXT NOT NULL, namespace TEXT NOT NULL,"
    " tier TEXT NOT NULL, text TEXT NOT NULL, speaker TEXT, role TEXT, chain_type TEXT,"
    " tags TEXT NOT NULL, timestamp REAL NOT NULL, expires_at REAL, metadata TEXT NOT NULL,"
    " archived INTEGER NOT NULL DEFAULT 0, tokens INTEGER NOT NULL DEFAULT 0,"
    " state TEXT NOT NULL);"
)
"""The table of entries before kinds, types and versions."""


def written_before(path: Path, script: str) -> None:
    """A SQLite file as an earlier release wrote it: ``script`` run on a new file."""
    with closing(sqlite3.connect(path)) as db:
        db.executescript(script)


def test_every_sqlite_file_is_created_at_the_latest_migration(tmp_path: Path) -> None:
    open_sqlite(tmp_path).close()
    open_sqlite(tmp_path).close()  # reopening changes nothing
    for group, name in FILES.items():
        with closing(sqlite3.connect(tmp_path / name)) as db:
            found = db.execute("SELECT version_num FROM alembic_version").fetchall()
        assert found == [(head(group),)]


def test_a_ledger_from_before_versions_opens_with_its_entries_and_logs_changes(
    tmp_path: Path,
) -> None:
    written_before(
        tmp_path / "ledger.sqlite3",
        ENTRIES_BEFORE_VERSIONS
        + "CREATE TABLE history (key TEXT NOT NULL, at REAL NOT NULL, action TEXT NOT NULL,"
        " actor TEXT NOT NULL);"
        "INSERT INTO entries VALUES ('ns:old', 'old', 'ns', 'E', 'kept', NULL, NULL, NULL,"
        " '[]', 1.0, NULL, '{}', 0, 3, 'synced');"
        "INSERT INTO history VALUES ('ns:old', 1.0, 'created', 'key:1');",
    )
    stores = open_sqlite(tmp_path)
    ledger = stores.ledger
    assert ledger.get(["ns:old"])["ns:old"].entry.text == "kept"
    assert [h.action for h in ledger.history("ns:old")] == ["created"]
    assert ledger.changes(0) == []
    ledger.put([StoredEntry(make_entry("new", "t", thread="x"), ())], at=T0)
    assert [(c.key, c.at) for c in ledger.changes(0)] == [("ns:new", T0)]
    stores.close()


def test_a_catalog_from_before_file_texts_keeps_its_files(tmp_path: Path) -> None:
    written_before(
        tmp_path / "catalog.sqlite3",
        "CREATE TABLE collections (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
        " namespace TEXT NOT NULL, path TEXT NOT NULL, mask TEXT NOT NULL, tier TEXT NOT NULL,"
        " created_at REAL NOT NULL, scanned_at REAL);"
        "CREATE TABLE files (collection TEXT NOT NULL REFERENCES collections(id) ON DELETE"
        " CASCADE, path TEXT NOT NULL, hash TEXT NOT NULL, chunks INTEGER NOT NULL,"
        " PRIMARY KEY (collection, path));"
        "INSERT INTO collections VALUES ('c1', 'notes', 'ns', '/srv', '*.md', 'A', 1.0, NULL);"
        "INSERT INTO files VALUES ('c1', 'a.md', 'h1', 2);",
    )
    stores = open_sqlite(tmp_path)
    catalog = stores.catalog
    assert catalog.get("ns", "notes") == Collection("c1", "notes", "ns", "/srv", "*.md", "A", 1.0)
    assert catalog.files("c1") == {"a.md": IndexedFile("a.md", "h1", 2)}
    assert catalog.text("c1", "a.md") is None  # indexed before texts were kept
    catalog.set_file("c1", IndexedFile("a.md", "h2", 1), "# A")
    assert catalog.text("c1", "a.md") == "# A"
    stores.close()


# What the last release before these migrations wrote, in its own schema (tests/legacy):
# rows in every table, written in an order their keys do not tell.
VECTOR = pack((0.5, -0.25))
ENTRY = "'ns', 'A', 'text {0}', 'ann', NULL, NULL, '[\"x\"]', {1}, NULL, '{{}}', {2}, 4, '{3}'"
LEGACY_ROWS = [
    (
        "ledger",
        "INSERT INTO entries (key, id, namespace, tier, text, speaker, role, chain_type, "
        "tags, timestamp, expires_at, metadata, archived, tokens, state, thread) VALUES "
        f"('ns:b', 'b', {ENTRY.format('b', T0, 'false', 'synced')}, 'talk')",
    ),
    (
        "ledger",
        "INSERT INTO entries (key, id, namespace, tier, text, speaker, role, chain_type, "
        "tags, timestamp, expires_at, metadata, archived, tokens, state, thread) VALUES "
        f"('ns:a', 'a', {ENTRY.format('a', T0 + 1, 'true', 'quarantined')}, 'talk')",
    ),
    ("ledger", "INSERT INTO chunks VALUES ('ns:a', 0, 'text a', :vector)"),
    ("ledger", "INSERT INTO chunks VALUES ('ns:b', 0, 'text b', NULL)"),
    (
        "ledger",
        f"INSERT INTO history (key, at, action, actor) VALUES ('ns:b', {T0}, 'created', 'x')",
    ),
    (
        "ledger",
        f"INSERT INTO history (key, at, action, actor) VALUES ('ns:a', {T0}, 'created', 'x')",
    ),
    (
        "ledger",
        f"INSERT INTO history (key, at, action, actor) VALUES ('ns:a', {T0}, 'archived', 'y')",
    ),
    ("ledger", f"INSERT INTO quarantine VALUES ('ns:a', 'odd', {T0})"),
    ("ledger", f"INSERT INTO changes (key, at) VALUES ('ns:b', {T0})"),
    ("ledger", f"INSERT INTO changes (key, at) VALUES ('ns:a', {T0 + 1})"),
    (
        "catalog",
        f"INSERT INTO collections VALUES ('c1', 'notes', 'ns', '/srv', '*.md', 'A', {T0}, NULL)",
    ),
    ("catalog", "INSERT INTO files VALUES ('c1', 'a.md', 'h1', 2, '# A')"),
    (
        "interactions",
        "INSERT INTO interactions (id, at, namespace, asker, question, results, "
        "strong_match, best_relevance, took_ms, answer_confidence) VALUES "
        f"('z', {T0}, 'ns', 'bot', 'first?', '[[\"a\", 0.8, 0.5]]', true, 0.8, 2.0, 0.7)",
    ),
    (
        "interactions",
        "INSERT INTO interactions (id, at, namespace, asker, question, results, "
        "strong_match, best_relevance, took_ms, answer_confidence) VALUES "
        f"('y', {T0}, 'ns', NULL, 'second?', '[]', false, 0.1, 1.0, NULL)",
    ),
    (
        "interactions",
        "INSERT INTO feedback (interaction_id, at, rating, comment, actor) VALUES "
        f"('z', {T0 + 1}, 'up', 'good', 'ann')",
    ),
    (
        "runs",
        "INSERT INTO job_runs (job, replica, started_at, finished_at, result, error, slot) "
        f"VALUES ('expire_c_tier', 'r1', {T0}, {T0 + 1}, '{{\"archived\": 2}}', NULL, {T0})",
    ),
]


def legacy_sqlite(data: Path) -> None:
    """A data directory as the last release before these migrations left it."""
    data.mkdir(parents=True, exist_ok=True)
    for group, name in FILES.items():
        folder = LEGACY / "sqlite" / ("jobs" if group == "runs" else group)
        db = sqlite3.connect(data / name)
        db.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT, at REAL)")
        for number, script in enumerate(sorted(folder.glob("*.sql")), start=1):
            db.executescript(script.read_text())
            db.execute("INSERT INTO schema_version VALUES (?, ?, 0)", (number, script.stem))
        for _, sql in (row for row in LEGACY_ROWS if row[0] == group):
            db.execute(sql.replace("true", "1").replace("false", "0"), {"vector": VECTOR})
        db.commit()
        db.close()


def legacy_postgres(url: str) -> None:
    """A database as the last release before these migrations left it."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE schema_version (version integer PRIMARY KEY, name text, at float)"
        )
        for number, script in enumerate(sorted((LEGACY / "postgres").glob("*.sql")), start=1):
            conn.execute(script.read_text().encode())
            conn.execute("INSERT INTO schema_version VALUES (%s, %s, 0)", (number, script.stem))
        for _, sql in LEGACY_ROWS:
            conn.execute(sql.replace(":vector", "%(vector)s").encode(), {"vector": VECTOR})


def assert_everything_kept(stores: DurableStores) -> None:
    ledger = stores.ledger
    assert ledger.count() == {"A": 1}  # ns:a is set aside
    b = ledger.get(["ns:b"])["ns:b"].entry
    assert (b.text, b.tags, b.thread, b.archived) == ("text b", ("x",), "talk", False)
    assert ledger.quarantined() == [Quarantined("ns:a", "odd", T0)]
    assert ledger.vectors(["ns:a"])["ns:a"].tolist() == [[0.5, -0.25]]
    last = ledger.last_in_thread("ns", "talk")
    assert last is None or last.id == "b"  # ns:a, written last, is set aside
    assert ledger.history("ns:a") == [
        HistoryEvent(T0, "created", "x"),
        HistoryEvent(T0, "archived", "y"),
    ]
    assert ledger.changes(0) == [Change(1, "ns:b", T0), Change(2, "ns:a", T0 + 1)]
    assert stores.catalog.get("ns", "notes") == Collection(
        "c1", "notes", "ns", "/srv", "*.md", "A", T0
    )
    assert stores.catalog.text("c1", "a.md") == "# A"
    # Names are unique per namespace now: another namespace may hold one of the same name.
    theirs = Collection("c2", "notes", "other", "/srv", "*.md", "A", T0)
    stores.catalog.add(theirs)
    assert stores.catalog.named("notes") == [stores.catalog.get("ns", "notes"), theirs]
    with pytest.raises(Exception):  # noqa: B017 (each database refuses in its own words)
        stores.catalog.add(Collection("c3", "notes", "other", "/srv", "*.md", "A", T0))
    asked, given = stores.interactions.between("ns", T0, T0 + 10)
    assert [i.id for i in asked] == ["z", "y"]  # logged in that order, at the same time
    assert asked[0].results == [InteractionResult("a", 0.8, 0.5)]
    assert (asked[0].strong_match, asked[0].answer_confidence) == (True, 0.7)
    assert given == [Feedback("z", T0 + 1, "up", "good", "ann")]
    run = stores.runs.last()["expire_c_tier"]
    assert (run.result, run.slot) == ({"archived": 2}, T0)
    assert stores.runs.start("expire_c_tier", "r2", T0 + 5, slot=T0) is None  # slot taken

    # What is written now comes after what was there.
    ledger.put([StoredEntry(make_entry("c", "later", thread="talk"), ())], at=T0 + 2)
    last = ledger.last_in_thread("ns", "talk")
    assert last is not None and last.id == "c"
    ledger.put([StoredEntry(make_entry("a", "again"), ())], actor="z", at=T0 + 3)
    assert [h.action for h in ledger.history("ns:a")] == ["created", "archived", "updated"]
    assert [c.seq for c in ledger.changes(2)] == [3, 4]
    stores.interactions.record(
        Interaction("x", T0, "ns", None, "third?", [], False, 0.0, 1.0, None)
    )
    assert [i.id for i in stores.interactions.between("ns", T0, T0 + 10)[0]] == ["z", "y", "x"]


def test_a_data_directory_of_the_release_before_upgrades_in_place(tmp_path: Path) -> None:
    legacy_sqlite(tmp_path)
    stores = open_sqlite(tmp_path)
    try:
        assert_everything_kept(stores)
    finally:
        stores.close()
    again = open_sqlite(tmp_path)  # and opens again as it is
    assert again.ledger.count() == {"A": 3}
    again.close()


def test_a_postgres_database_of_the_release_before_upgrades_in_place(
    fresh_postgres_url: str,
) -> None:
    legacy_postgres(fresh_postgres_url)
    stores = open_postgres(fresh_postgres_url)
    try:
        assert_everything_kept(stores)
    finally:
        stores.close()
    with psycopg.connect(fresh_postgres_url) as conn:
        found = {row[0] for row in conn.execute("SELECT version_num FROM alembic_version")}
        assert found == {head(group) for group in FILES}
        assert conn.execute("SELECT to_regclass('schema_version')").fetchone() == (None,)


def test_a_file_of_a_newer_release_is_refused(tmp_path: Path) -> None:
    open_sqlite(tmp_path).close()
    with closing(sqlite3.connect(tmp_path / "ledger.sqlite3")) as db:
        db.execute("UPDATE alembic_version SET version_num = 'ledger_9999'")
        db.commit()
    with pytest.raises(SchemaTooNew, match="ledger_9999"):
        open_sqlite(tmp_path)


def fails_on_a_full_disk(
    monkeypatch: pytest.MonkeyPatch, open_stores: Callable[[], object]
) -> None:
    """Opening the stores fails, its migration's last step finding the disk full."""

    def fail(*_: object, **__: object) -> None:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(command, "stamp", fail)
    with pytest.raises(RuntimeError, match="disk is full"):
        open_stores()


def test_a_failing_sqlite_migration_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fails_on_a_full_disk(monkeypatch, lambda: open_sqlite(tmp_path))
    with closing(sqlite3.connect(tmp_path / "ledger.sqlite3")) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == []


def test_a_failing_postgres_migration_leaves_the_database_as_it_was(
    fresh_postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fails_on_a_full_disk(monkeypatch, lambda: open_postgres(fresh_postgres_url))
    with psycopg.connect(fresh_postgres_url) as conn:
        found = conn.execute("SELECT to_regclass('entries'), to_regclass('alembic_version')")
        assert found.fetchone() == (None, None)


def test_replicas_starting_together_migrate_once(fresh_postgres_url: str) -> None:
    opened: list[DurableStores] = []
    failed: list[BaseException] = []
    barrier = threading.Barrier(3)

    def start() -> None:
        barrier.wait()
        try:
            opened.append(open_postgres(fresh_postgres_url))
        except BaseException as exc:  # reported below
            failed.append(exc)

    run_all([start] * 3)
    try:
        assert failed == []
        assert [stores.ledger.count() for stores in opened] == [{}, {}, {}]
    finally:
        for stores in opened:
            stores.close()


def run_all(work: list[Callable[[], None]]) -> None:
    threads = [threading.Thread(target=one) for one in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def reference_before_verdicts(url: str) -> None:
    """The database at ``url``, at this release's schema, taken back to the migration before
    references were found by their words, holding one reference."""
    engine = create_engine(url)
    with engine.begin() as conn:
        command.downgrade(config_for(conn), "ledger_0005_references")
        conn.exec_driver_sql(
            "INSERT INTO reference_questions VALUES "
            "('ns', 'r1', 1, 'How often do we rotate API keys?', '[]', 'feedback', 'ann', 5.0)"
        )
    engine.dispose()


def assert_found_by_its_words(stores: DurableStores) -> None:
    try:
        found = stores.ledger.reference_asking("ns", "how often do we rotate api keys")
        assert found is not None and (found.id, found.answers) == ("r1", ())
    finally:
        stores.close()


def test_references_kept_before_they_were_found_by_their_words_are_found_after(
    tmp_path: Path,
) -> None:
    open_sqlite(tmp_path).close()
    reference_before_verdicts(f"sqlite:///{tmp_path / 'ledger.sqlite3'}")
    assert_found_by_its_words(open_sqlite(tmp_path))


def test_references_in_postgres_before_they_were_found_by_their_words_are_found_after(
    fresh_postgres_url: str,
) -> None:
    open_postgres(fresh_postgres_url).close()
    reference_before_verdicts(fresh_postgres_url)
    assert_found_by_its_words(open_postgres(fresh_postgres_url))
