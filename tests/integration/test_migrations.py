"""Versioned migrations: files and databases of earlier versions open and upgrade, each
migration is applied once, in a transaction, and a newer schema is refused."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import psycopg
import pytest

from service.domain.collections import Collection, IndexedFile
from service.domain.models import StoredEntry
from service.stores import migrations
from service.stores.catalog import SqliteCatalog
from service.stores.embedded import open_sqlite
from service.stores.ledger import SqliteLedger
from service.stores.migrations import (
    Migration,
    SchemaTooNew,
    migrate_postgres,
    migrate_sqlite,
    statements,
)
from service.stores.postgres import open_postgres
from tests.fakes import T0, make_entry


def versions(db: sqlite3.Connection) -> list[int]:
    return [row[0] for row in db.execute("SELECT version FROM schema_version ORDER BY 1")]


def test_every_sqlite_file_is_created_at_the_latest_version(tmp_path: Path) -> None:
    open_sqlite(tmp_path).close()
    for name, schema in [
        ("ledger", "sqlite/ledger"),
        ("catalog", "sqlite/catalog"),
        ("interactions", "sqlite/interactions"),
        ("jobs", "sqlite/jobs"),
    ]:
        db = sqlite3.connect(tmp_path / f"{name}.sqlite3")
        assert versions(db) == [m.version for m in migrations.migrations(schema)]
        assert migrate_sqlite(db, schema) == []  # reopening applies nothing
        db.close()


def test_a_ledger_from_before_versions_opens_with_its_entries_and_logs_changes(
    tmp_path: Path,
) -> None:
    db = sqlite3.connect(tmp_path / "ledger.sqlite3")
    db.executescript(
        "CREATE TABLE entries (key TEXT PRIMARY KEY, id TEXT NOT NULL, namespace TEXT NOT NULL,"
        " tier TEXT NOT NULL, text TEXT NOT NULL, speaker TEXT, role TEXT, chain_type TEXT,"
        " tags TEXT NOT NULL, timestamp REAL NOT NULL, expires_at REAL, metadata TEXT NOT NULL,"
        " archived INTEGER NOT NULL DEFAULT 0, tokens INTEGER NOT NULL DEFAULT 0,"
        " state TEXT NOT NULL);"
        "CREATE TABLE history (key TEXT NOT NULL, at REAL NOT NULL, action TEXT NOT NULL,"
        " actor TEXT NOT NULL);"
        "INSERT INTO entries VALUES ('ns:old', 'old', 'ns', 'E', 'kept', NULL, NULL, NULL,"
        " '[]', 1.0, NULL, '{}', 0, 3, 'synced');"
        "INSERT INTO history VALUES ('ns:old', 1.0, 'created', 'key:1');"
    )
    db.close()
    ledger = SqliteLedger(tmp_path / "ledger.sqlite3")
    assert ledger.get(["ns:old"])["ns:old"].entry.text == "kept"
    assert [h.action for h in ledger.history("ns:old")] == ["created"]
    assert ledger.changes(0) == []
    ledger.put([StoredEntry(make_entry("new", "t", thread="x"), ())], at=T0)
    assert [(c.key, c.at) for c in ledger.changes(0)] == [("ns:new", T0)]
    ledger.close()


def test_a_catalog_from_before_file_texts_keeps_its_files(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "catalog.sqlite3")
    db.executescript(
        "CREATE TABLE collections (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
        " namespace TEXT NOT NULL, path TEXT NOT NULL, mask TEXT NOT NULL, tier TEXT NOT NULL,"
        " created_at REAL NOT NULL, scanned_at REAL);"
        "CREATE TABLE files (collection TEXT NOT NULL REFERENCES collections(id) ON DELETE"
        " CASCADE, path TEXT NOT NULL, hash TEXT NOT NULL, chunks INTEGER NOT NULL,"
        " PRIMARY KEY (collection, path));"
        "INSERT INTO collections VALUES ('c1', 'notes', 'ns', '/srv', '*.md', 'A', 1.0, NULL);"
        "INSERT INTO files VALUES ('c1', 'a.md', 'h1', 2);"
    )
    db.close()
    catalog = SqliteCatalog(tmp_path / "catalog.sqlite3")
    assert catalog.get("notes") == Collection("c1", "notes", "ns", "/srv", "*.md", "A", 1.0)
    assert catalog.files("c1") == {"a.md": IndexedFile("a.md", "h1", 2)}
    assert catalog.text("c1", "a.md") is None  # indexed before texts were kept
    catalog.set_file("c1", IndexedFile("a.md", "h2", 1), "# A")
    assert catalog.text("c1", "a.md") == "# A"
    catalog.close()


def test_a_file_of_a_newer_release_is_refused(tmp_path: Path) -> None:
    open_sqlite(tmp_path).close()
    db = sqlite3.connect(tmp_path / "ledger.sqlite3")
    db.execute("INSERT INTO schema_version VALUES (99, 'future', 0)")
    db.commit()
    db.close()
    with pytest.raises(SchemaTooNew, match="version 99"):
        SqliteLedger(tmp_path / "ledger.sqlite3")


BROKEN = (
    Migration(1, "first", "CREATE TABLE kept (n integer);"),
    Migration(2, "broken", "CREATE TABLE half (n integer); INSERT INTO nowhere VALUES (1);"),
)


def test_a_failing_sqlite_migration_leaves_the_version_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(migrations, "migrations", lambda schema: BROKEN)
    db = sqlite3.connect(tmp_path / "x.sqlite3", isolation_level=None)
    with pytest.raises(sqlite3.OperationalError, match="nowhere"):
        migrate_sqlite(db, "test")
    assert versions(db) == [1]
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "kept" in tables and "half" not in tables
    db.close()


def test_a_failing_postgres_migration_leaves_the_version_before_it(
    fresh_postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(migrations, "migrations", lambda schema: BROKEN)
    with psycopg.connect(fresh_postgres_url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.UndefinedTable):
            migrate_postgres(conn)
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(1,)]
        found = conn.execute("SELECT to_regclass('kept'), to_regclass('half')").fetchone()
        assert found == ("kept", None)


def test_replicas_starting_together_migrate_once(fresh_postgres_url: str) -> None:
    applied: list[list[int]] = []
    barrier = threading.Barrier(3)

    def start() -> None:
        with psycopg.connect(fresh_postgres_url, autocommit=True) as conn:
            barrier.wait()
            applied.append(migrate_postgres(conn))

    threads = [threading.Thread(target=start) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    latest = [m.version for m in migrations.migrations("postgres")]
    assert sorted(applied) == [[], [], latest]
    stores = open_postgres(fresh_postgres_url)  # opens on the migrated schema, as it is
    try:
        assert stores.ledger.count() == {}
    finally:
        stores.close()


def test_statements_are_cut_where_sqlite_ends_them() -> None:
    script = (
        "CREATE TABLE t (a TEXT DEFAULT 'x;y');\n"
        "CREATE TRIGGER t_log AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; END;\n"
        "-- a comment\n;"
    )
    assert statements(script) == [
        "CREATE TABLE t (a TEXT DEFAULT 'x;y');",
        "CREATE TRIGGER t_log AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; END;",
    ]
