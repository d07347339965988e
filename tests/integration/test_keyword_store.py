"""What the Tantivy keyword store adds to the keyword store's contract
(tests/contracts/test_keyword_store.py): English stemming, and its index on disk."""

from __future__ import annotations

from pathlib import Path

import tantivy

from service.domain.entries import DIGEST, Chunk, StoredEntry
from service.domain.memory.preparation import prepare
from service.settings import ChunkingSettings
from service.stores.tantivy import TantivyKeywordStore
from tests.fakes import make_entry, make_filters


def put(store: TantivyKeywordStore, id: str, text: str) -> None:
    e = make_entry(id, text, "E")
    store.apply([StoredEntry(e, (Chunk(e.key, 0, text),))], ())


def search(store: TantivyKeywordStore, text: str) -> list[str]:
    return [h.key for h in store.search(text, make_filters(), 10)]


def test_english_stemming_matches_word_forms(tmp_path: Path) -> None:
    store = TantivyKeywordStore(tmp_path / "index")
    put(store, "1", "The deployment was running slowly")
    assert search(store, "deployments run") == ["ns:1"]


def test_clear_and_reopen(tmp_path: Path) -> None:
    store = TantivyKeywordStore(tmp_path / "index")
    put(store, "1", "kept on disk")
    store.close()
    reopened = TantivyKeywordStore(tmp_path / "index")
    assert search(reopened, "disk") == ["ns:1"]
    reopened.clear()
    reopened.close()
    assert TantivyKeywordStore(tmp_path / "index").count() == 0


def documents_in(store: TantivyKeywordStore, namespace: str = "ns") -> int:
    """Documents (passages) the namespace's index holds."""
    index = store._index(namespace)
    return index.index.searcher().num_docs if index is not None else 0


def digest_of(lines: list[str]) -> StoredEntry:
    """A digest as the archive job stores it: its passages (head, then each quoted line)
    are its chunks."""
    text = "\n".join(["Digest of 2020-01-01 (UTC): 30 archived entries.", *lines])
    entry = make_entry("digest:2020-01-01:day", text, "E", kind=DIGEST, archived=True)
    return prepare([entry], None, ChunkingSettings())[0]


QUOTED = [f"[09:{n:02d}:00 ci id l{n}] step {n} of the nightly build passed" for n in range(20)]


def test_a_digest_line_is_found_as_its_digest_naming_the_line(tmp_path: Path) -> None:
    store = TantivyKeywordStore(tmp_path / "index")
    lines = [
        *QUOTED[:7],
        "[10:15:00 ci id l7] alembic upgrade moved the invoices table",
        *QUOTED[7:],
    ]
    store.apply([digest_of(lines)], ())
    put(store, "1", "the invoices dashboard")
    hits = store.search("invoices table migration", make_filters(include_archived=True), 10)
    assert [(h.key, h.chunk) for h in hits] == [("ns:digest:2020-01-01:day", 8), ("ns:1", 0)]
    # a query that several lines match still makes one hit of the digest
    many = store.search("nightly build", make_filters(include_archived=True), 10)
    assert [h.key for h in many] == ["ns:digest:2020-01-01:day"]
    assert store.count() == 2


def test_a_digest_line_scores_as_a_line_not_as_the_whole_digest(tmp_path: Path) -> None:
    """A line of a long digest outranks a long log that mentions the same words once
    among many others, as it would had it been written alone."""
    store = TantivyKeywordStore(tmp_path / "index")
    store.apply([digest_of([*QUOTED, "[11:00:00 ci id l20] rotated the stripe webhook key"])], ())
    put(
        store,
        "long",
        "rotated " + " ".join(f"filler{n}" for n in range(60)) + " stripe webhook key",
    )
    hits = store.search("stripe webhook key rotated", make_filters(include_archived=True), 10)
    assert hits[0].key == "ns:digest:2020-01-01:day"
    assert hits[0].chunk == 21


def test_deleting_a_digest_removes_every_passage(tmp_path: Path) -> None:
    store = TantivyKeywordStore(tmp_path / "index")
    store.apply([digest_of(QUOTED)], ())
    store.apply([], ["ns:digest:2020-01-01:day"])
    assert store.search("nightly build", make_filters(include_archived=True), 10) == []
    assert store.count() == 0 and documents_in(store) == 0


def test_rebuilt_index_holds_the_passages(tmp_path: Path) -> None:
    store = TantivyKeywordStore(tmp_path / "index")
    store.replace_all([[digest_of(QUOTED)]])
    assert store.count() == 1 and documents_in(store) == 21
    hits = store.search("step 13", make_filters(include_archived=True), 10)
    assert [(h.key, h.chunk) for h in hits] == [("ns:digest:2020-01-01:day", 14)]


def test_an_index_of_an_older_schema_starts_anew(tmp_path: Path) -> None:
    """An index written before passages were counted is set aside by starting empty: the
    service sees it hold fewer entries than the ledger and rebuilds it."""
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("key", stored=True, tokenizer_name="raw")
    builder.add_text_field("text", tokenizer_name="en_stem")
    (tmp_path / "index").mkdir()
    old = tantivy.Index(builder.build(), path=str(tmp_path / "index"))
    writer = old.writer(heap_size=15_000_000, num_threads=1)
    document = tantivy.Document()
    document.add_text("key", "ns:1")
    writer.add_document(document)
    writer.commit()
    writer.wait_merging_threads()
    store = TantivyKeywordStore(tmp_path / "index")
    assert store.count() == 0
    put(store, "2", "written after the upgrade")
    assert search(store, "upgrade") == ["ns:2"]


def files_holding(root: Path, word: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and word in p.read_bytes()]


def test_an_erased_namespace_leaves_none_of_its_words_on_disk(tmp_path: Path) -> None:
    store = TantivyKeywordStore(tmp_path / "index")
    # Terms are compressed in the index's files; the stored key is there as written.
    secret = make_entry("zyzzogeton", "quarterly forecast", "A", namespace="alice")
    kept = make_entry("k", "quarterly forecast", "A", namespace="bob")
    store.apply([StoredEntry(e, (Chunk(e.key, 0, e.text),)) for e in (secret, kept)], ())
    assert files_holding(tmp_path, b"zyzzogeton")
    store.erase_namespace("alice")
    assert files_holding(tmp_path, b"zyzzogeton") == []
    assert store.namespaces() == ["bob"]
    assert store.search("forecast", make_filters(namespace="bob"), 10)[0].key == "bob:k"


def test_a_namespace_named_like_a_path_stays_inside_the_index(tmp_path: Path) -> None:
    store = TantivyKeywordStore(tmp_path / "index")
    for namespace in ("..", "."):
        e = make_entry("1", "escape attempt", "E", namespace=namespace)
        store.apply([StoredEntry(e, (Chunk(e.key, 0, e.text),))], ())
    assert sorted(store.namespaces()) == [".", ".."]
    assert [p.name for p in tmp_path.iterdir()] == ["index"]
    store.erase_namespace("..")
    assert store.namespaces() == ["."]


def test_many_namespaces_hold_bounded_pools(tmp_path: Path) -> None:
    store = TantivyKeywordStore(tmp_path / "index", open_indexes=4, open_writers=2)
    for n in range(12):
        put_in(store, f"team{n}", "the deploy went out")
        assert [h.key for h in store.search("deploy", make_filters(namespace=f"team{n}"), 5)]
    assert len(store._indexes) <= 4 and len(store._writers) <= 2
    # an index closed by the pool is opened again, whole
    assert [h.key for h in store.search("deploy", make_filters(namespace="team0"), 5)] == [
        "team0:1"
    ]
    assert store.count() == 12


def put_in(store: TantivyKeywordStore, namespace: str, text: str) -> None:
    e = make_entry("1", text, "E", namespace=namespace)
    store.apply([StoredEntry(e, (Chunk(e.key, 0, text),))], ())


def test_a_rebuild_switches_generations_and_drops_the_old(tmp_path: Path) -> None:
    store = TantivyKeywordStore(tmp_path / "index")
    put_in(store, "a", "old words")
    first = store.generation
    e = make_entry("2", "new words", "E", namespace="b")
    store.replace_all([[StoredEntry(e, (Chunk(e.key, 0, e.text),))]])
    assert store.generation != first
    assert not (tmp_path / "index" / first).exists()
    assert store.namespaces() == ["b"]
    reopened = TantivyKeywordStore(tmp_path / "index")
    assert [h.key for h in reopened.search("words", make_filters(namespace="b"), 5)] == ["b:2"]


def test_an_index_of_the_shared_layout_starts_empty(tmp_path: Path) -> None:
    root = tmp_path / "index"
    root.mkdir()
    (root / "meta.json").write_text("{}")
    (root / "abc.idx").write_bytes(b"old segment")
    store = TantivyKeywordStore(root)
    assert store.count() == 0
    assert sorted(p.name for p in root.iterdir()) == ["1", "CURRENT"]


def test_one_write_over_several_namespaces_lands_in_each(tmp_path: Path) -> None:
    store = TantivyKeywordStore(tmp_path / "index", open_writers=2)
    entries = [
        make_entry(str(n), "deploy went out", "E", namespace=f"team{n % 5}") for n in range(20)
    ]
    store.apply([StoredEntry(e, (Chunk(e.key, 0, e.text),)) for e in entries], ())
    for team in range(5):
        found = store.search("deploy", make_filters(namespace=f"team{team}"), 10)
        assert len(found) == 4
    store.apply((), [e.key for e in entries[:10]])
    assert store.count() == 10
    store.close()
