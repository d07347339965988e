"""The openers of the durable stores: SQLite files of one process, or one Postgres
database shared by replicas."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy.exc

from service.domain.entries import StoredEntry
from service.domain.model import Collection, IndexedFile, Interaction
from service.stores.durable import DurableStores, open_postgres, open_sqlite
from tests.contracts.test_ledger import stored
from tests.fakes import T0, make_entry
from tests.postgres import free_port


def write_some(stores: DurableStores) -> None:
    stores.ledger.put([stored("1")], at=T0)
    stores.catalog.add(Collection("c1", "notes", "ns", "/srv/notes", "*.md", "A", T0))
    stores.catalog.set_file("c1", IndexedFile("a.md", "h1", 1), "# A")
    stores.interactions.record(Interaction("i1", T0, "ns", None, "why?", [], False, 0.0, 1.0))
    assert stores.runs.start("expire", "replica-1", T0, slot=T0) is not None


def assert_read_back(stores: DurableStores) -> None:
    assert stores.ledger.get(["ns:1"]) == {"ns:1": stored("1")}
    assert [c.key for c in stores.ledger.changes(0)] == ["ns:1"]
    assert stores.catalog.text("c1", "a.md") == "# A"
    found = stores.interactions.get("i1")
    assert found is not None and found.question == "why?"
    assert stores.runs.start("expire", "replica-2", T0, slot=T0) is None


def test_the_embedded_stores_are_kept_in_the_data_folder(tmp_path: Path) -> None:
    first = open_sqlite(tmp_path / "data")
    write_some(first)
    assert first.coordination.lead()
    first.close()
    assert sorted(p.name for p in (tmp_path / "data").glob("*.sqlite3")) == [
        "catalog.sqlite3",
        "interactions.sqlite3",
        "jobs.sqlite3",
        "ledger.sqlite3",
    ]
    again = open_sqlite(tmp_path / "data")
    try:
        assert_read_back(again)
    finally:
        again.close()


def test_replicas_share_the_stores_of_one_database(postgres_url: str) -> None:
    first, second = open_postgres(postgres_url), open_postgres(postgres_url)
    try:
        write_some(first)
        assert_read_back(second)
        assert first.coordination.lead() != second.coordination.lead()
        second.ledger.put([StoredEntry(make_entry("2", "t"), ())], at=T0 + 1)
        assert [c.key for c in first.ledger.changes(0)] == ["ns:1", "ns:2"]
    finally:
        first.close()
        second.close()


def test_a_database_out_of_reach_fails_at_open() -> None:
    with pytest.raises(sqlalchemy.exc.OperationalError, match="Connection refused"):
        open_postgres(f"postgresql://strata@127.0.0.1:{free_port()}/strata")
