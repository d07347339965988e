"""``strata migrate``: a data directory to Postgres and back, with nothing lost or embedded."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from service.cli import USAGE, main
from service.domain.entries import (
    Chunk,
    Erasure,
    HistoryEvent,
    Quarantined,
    StoredEntry,
    Supersession,
)
from service.domain.model import (
    Collection,
    Feedback,
    IndexedFile,
    Interaction,
    InteractionResult,
    JobRun,
)
from service.domain.model.references import Fit, Reference
from service.errors import ConfigError
from service.stores.copying import copy_state
from service.stores.durable import DurableStores, open_postgres, open_sqlite
from tests.fakes import T0, make_entry

DAY = 86_400.0


def stored(
    id: str, text: str, vectors: list[tuple[float, ...] | None], **fields: Any
) -> StoredEntry:
    entry = make_entry(id, text, **fields)
    chunks = tuple(Chunk(entry.key, n, f"{text} {n}", v) for n, v in enumerate(vectors))
    return StoredEntry(entry, chunks, tokens=7 * len(vectors))


def fill(stores: DurableStores) -> None:
    """A bit of everything a service stores."""
    ledger = stores.ledger
    ledger.put(
        [
            stored("a", "we picked postgres", [(0.6, 0.8), (1.0, 0.0)], tags=("db",)),
            stored("c", "standup notes", [(0.0, 1.0)], tier="C", expires_at=T0 + DAY),
            stored("e", "GET /health 200", [None], tier="E", metadata={"status": 200}),
            stored("t1", "which city?", [None], tier="E", thread="offsite"),
            stored("t2", "Lisbon, in May.", [None], tier="E", thread="offsite", context="x"),
            stored("gone", "deleted soon", [None], tier="E"),
            stored("odd", "set aside", [(0.1, 0.2)]),
        ],
        actor="alice",
        at=T0,
    )
    ledger.mark_synced(["ns:a", "ns:e", "ns:t1", "ns:t2", "ns:odd"])  # "c" stays pending
    ledger.put(
        [stored("a", "we picked postgres", [(0.6, 0.8), (1.0, 0.0)], tags=("db",), archived=True)],
        action="archived",
        actor="scheduler",
        at=T0 + 1,
    )
    ledger.put(
        [stored("t2", "Lisbon, in May.", [None], tier="E", thread="offsite", context="x")],
        actor="carol",
        at=T0 + 1,
        supersedes=[("ns:t1", "ns:t2")],
    )
    ledger.remove(ledger.mark_deleting(["ns:gone"]), actor="bob", at=T0 + 2)
    ledger.quarantine({"ns:odd": "chunk vectors of different sizes"}, at=T0 + 3)
    notes = Collection("c1", "notes", "ns", "/srv/notes", "**/*.md", "A", T0, T0 + 5)
    stores.catalog.add(notes)
    stores.catalog.set_file("c1", IndexedFile("a.md", "h1", 2), "# A\n\nalpha\n")
    stores.catalog.set_file("c1", IndexedFile("b/c.md", "h2", 1), "gamma ✓\n")
    asked = Interaction(
        "i1", T0, "ns", "bot", "which db?", [InteractionResult("a", 0.81, 0.5)], True, 0.81, 12.5
    )
    stores.interactions.record(asked)
    stores.interactions.record(Interaction("i2", T0 + 1, "ns", None, "why?", [], False, 0.0, 1.0))
    stores.interactions.add_feedback(Feedback("i1", T0 + 2, "up", "spot on", "alice"))
    run = stores.runs.start("expire_c_tier", "api-1", T0, slot=T0)
    assert run is not None
    stores.runs.finish(run, T0 + 1, {"archived": 2}, None)
    stores.runs.start("optimize_indexes", "api-2", T0 + 5)
    ledger.erase("gone-tenant", actor="admin", at=T0 + 6, counted={"interactions": 3})
    ledger.add_references(
        [
            Reference("ns", "r1", "which db?", ("a",), "feedback", "alice", T0 + 7),
            Reference("ns", "r2", "who won?", (), "admin", "bob", T0 + 8),
        ]
    )
    ledger.add_fit(Fit("ns", 0, 0.6, 0.01, T0 + 9, "admin", {"references": 2}))
    ledger.add_fit(Fit("ns", 0, 0.5, 0.02, T0 + 10, "admin", {"references": 2}))
    ledger.activate_fit("ns", 1)
    stores.signed_out.sign_out("session-1", until=T0 + DAY, now=T0)


@dataclass
class Everything:
    entries: dict[str, StoredEntry]
    pending: list[str]
    history: dict[str, list[HistoryEvent]]
    supersessions: list[Supersession]
    quarantined: list[Quarantined]
    last_in_thread: str | None
    collections: list[Collection]
    files: dict[str, tuple[IndexedFile | None, str | None]]
    interactions: tuple[list[Interaction], list[Feedback]]
    runs: dict[str, list[JobRun]]
    erasures: list[Erasure]
    references: tuple[list[Reference], list[Fit], Fit | None]
    signed_out: bool
    """Whether the console session signed out of is still refused."""


def everything(stores: DurableStores) -> Everything:
    """What the stores hold, as their ports read it, ids of job runs aside."""
    ledger = stores.ledger
    entries = {s.entry.key: s for batch in ledger.scan() for s in batch}
    last = ledger.last_in_thread("ns", "offsite")
    keys = ["ns:a", "ns:c", "ns:e", "ns:t1", "ns:t2", "ns:gone", "ns:odd"]
    files = {
        p: (stores.catalog.file("c1", p), stores.catalog.text("c1", p)) for p in ("a.md", "b/c.md")
    }
    runs = {
        job: [replace(r, id=0) for r in stores.runs.runs(job)]
        for job in ("expire_c_tier", "optimize_indexes")
    }
    return Everything(
        entries,
        sorted(s.entry.key for s in ledger.unsynced()[0]),
        {k: ledger.history(k) for k in keys},
        ledger.supersessions(keys),
        ledger.quarantined(),
        last.id if last else None,
        stores.catalog.all(),
        files,
        stores.interactions.between("ns", T0 - DAY, T0 + DAY),
        runs,
        ledger.erasures(),
        (ledger.references("ns"), ledger.fits("ns"), ledger.active_fit("ns")),
        stores.signed_out.signed_out("session-1"),
    )


@pytest.fixture
def source(tmp_path: Path) -> Path:
    data = tmp_path / "source"
    stores = open_sqlite(data)
    try:
        fill(stores)
    finally:
        stores.close()
    return data


def read(where: Path | str) -> Everything:
    stores = open_sqlite(where) if isinstance(where, Path) else open_postgres(where)
    try:
        return everything(stores)
    finally:
        stores.close()


def test_a_data_directory_goes_to_postgres_and_back_unchanged(
    source: Path, postgres_url: str, tmp_path: Path
) -> None:
    before = read(source)
    copied = copy_state(str(source), postgres_url)
    assert copied.rows == {
        "entries": 6,  # with the one set aside, without the one deleted
        "chunks": 7,
        "history": 11,
        "quarantine": 1,
        "supersessions": 1,
        "collections": 1,
        "files": 2,
        "interactions": 2,
        "feedback": 1,
        "job_runs": 2,
        "erasures": 1,
        "reference_questions": 2,
        "fits": 2,
        "fits_in_force": 1,
        "signed_out": 1,
    }
    assert copied.vectors == 4
    assert read(postgres_url) == before

    back = tmp_path / "back"
    (back / "tantivy").mkdir(parents=True)  # an index of whatever was here before
    copied = copy_state(postgres_url, str(back))
    assert copied.cleared == ["tantivy"]
    assert read(back) == before
    assert before.entries["ns:a"].chunks[1].vector == (1.0, 0.0)
    assert before.entries["ns:a"].entry.archived
    assert before.pending == ["ns:a", "ns:c", "ns:t2"]  # rewritten after it was synced
    assert before.last_in_thread == "t2"
    assert before.entries["ns:t1"].entry.superseded_by == "t2"
    assert before.signed_out


def test_a_target_that_holds_anything_is_refused_unless_forced(
    source: Path, postgres_url: str, tmp_path: Path
) -> None:
    copy_state(str(source), postgres_url)
    stores = open_postgres(postgres_url)
    try:
        stores.ledger.put([stored("x", "written in the cluster", [None], tier="E")])
        followed = stores.ledger.change_bounds().latest
    finally:
        stores.close()
    with pytest.raises(ConfigError, match="is not empty \\(entries 7, collections 1"):
        copy_state(str(source), postgres_url)
    copy_state(str(source), postgres_url, force=True)
    assert read(postgres_url) == read(source)
    stores = open_postgres(postgres_url)
    try:
        # A replica that had followed the log up to any point rebuilds its index.
        assert stores.ledger.change_bounds().horizon > followed
    finally:
        stores.close()


def test_only_a_directory_and_a_database_are_copied_between(
    source: Path, tmp_path: Path, postgres_url: str
) -> None:
    with pytest.raises(ConfigError, match="between a data directory and a postgresql://"):
        copy_state(str(source), str(tmp_path / "other"))
    with pytest.raises(ConfigError, match="no data directory at"):
        copy_state(str(tmp_path / "missing"), postgres_url)


def test_the_command_prints_what_it_copied(
    source: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["migrate", "--to", postgres_url, "--data", str(source)]) == 0
    out = capsys.readouterr().out
    assert "  entries               6" in out
    assert "  chunks                7  (4 with vectors)" in out
    assert main(["migrate", "--to", postgres_url, "--data", str(source)]) == USAGE
    assert "--force" in capsys.readouterr().err
