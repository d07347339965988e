"""The catalog's contract: FakeCatalog, SqliteCatalog and PostgresCatalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.domain.model import Collection, IndexedFile
from service.domain.ports import Catalog
from tests.fakes import T0, FakeCatalog
from tests.postgres import POSTGRES
from tests.stores import durable_opener


@pytest.fixture(params=["fake", "sqlite", POSTGRES])
def catalog(request: pytest.FixtureRequest, tmp_path: Path) -> Catalog:
    if request.param == "fake":
        return FakeCatalog()
    return durable_opener(request, tmp_path)().catalog


def collection(name: str, id: str | None = None, namespace: str = "ns") -> Collection:
    return Collection(id or f"id-{name}", name, namespace, f"/srv/{name}", "**/*.md", "A", T0)


def test_collections_read_back_by_name_in_name_order(catalog: Catalog) -> None:
    catalog.add(collection("notes"))
    catalog.add(collection("adr"))
    assert catalog.get("ns", "notes") == collection("notes")
    assert catalog.get("ns", "missing") is None
    assert [c.name for c in catalog.all()] == ["adr", "notes"]


def test_a_name_or_id_is_taken_once(catalog: Catalog) -> None:
    catalog.add(collection("notes"))
    with pytest.raises(Exception):  # noqa: B017 (each store refuses in its own words)
        catalog.add(collection("notes", id="another"))
    with pytest.raises(Exception):  # noqa: B017
        catalog.add(collection("other", id="id-notes"))
    assert catalog.all() == [collection("notes")]


def test_names_are_unique_within_a_namespace_only(catalog: Catalog) -> None:
    catalog.add(collection("notes"))
    theirs = collection("notes", id="id-theirs", namespace="other")
    catalog.add(theirs)
    assert catalog.get("ns", "notes") == collection("notes")
    assert catalog.get("other", "notes") == theirs
    assert catalog.get("third", "notes") is None
    assert catalog.named("notes") == [collection("notes"), theirs]
    assert catalog.named("missing") == []
    with pytest.raises(Exception):  # noqa: B017
        catalog.add(collection("notes", id="id-again", namespace="other"))
    catalog.rename("id-theirs", "docs")
    catalog.rename("id-notes", "docs")  # a name another namespace holds is free here
    assert [(c.namespace, c.name) for c in catalog.all()] == [("ns", "docs"), ("other", "docs")]


def test_renaming_keeps_the_id_and_the_files(catalog: Catalog) -> None:
    catalog.add(collection("notes"))
    catalog.set_file("id-notes", IndexedFile("a.md", "h1", 2), "# a.md h1")
    catalog.rename("id-notes", "docs")
    assert catalog.get("ns", "notes") is None
    renamed = catalog.get("ns", "docs")
    assert renamed is not None and renamed.id == "id-notes"
    assert catalog.files("id-notes") == {"a.md": IndexedFile("a.md", "h1", 2)}
    catalog.rename("id-missing", "whatever")
    assert [c.name for c in catalog.all()] == ["docs"]


def test_a_scan_is_recorded_with_its_time(catalog: Catalog) -> None:
    catalog.add(collection("notes"))
    catalog.scanned("id-notes", T0 + 60)
    found = catalog.get("ns", "notes")
    assert found is not None and found.scanned_at == T0 + 60


def test_files_are_kept_per_collection_and_replaced_by_path(catalog: Catalog) -> None:
    catalog.add(collection("notes"))
    catalog.add(collection("adr"))
    catalog.set_file("id-notes", IndexedFile("a.md", "h1", 2), "# a.md h1")
    catalog.set_file("id-notes", IndexedFile("b.md", "h2", 1), "# b.md h2")
    catalog.set_file("id-notes", IndexedFile("a.md", "h3", 5), "# a.md h3")
    catalog.set_file("id-adr", IndexedFile("a.md", "h9", 1), "# a.md h9")
    assert catalog.files("id-notes") == {
        "a.md": IndexedFile("a.md", "h3", 5),
        "b.md": IndexedFile("b.md", "h2", 1),
    }
    assert catalog.file("id-notes", "b.md") == IndexedFile("b.md", "h2", 1)
    assert catalog.file("id-adr", "b.md") is None
    assert catalog.file("id-notes", "missing.md") is None
    catalog.remove_file("id-notes", "a.md")
    catalog.remove_file("id-notes", "missing.md")
    assert catalog.file("id-notes", "a.md") is None
    assert list(catalog.files("id-notes")) == ["b.md"]
    assert list(catalog.files("id-adr")) == ["a.md"]
    assert catalog.files("id-missing") == {}


def test_a_file_of_no_collection_is_refused(catalog: Catalog) -> None:
    with pytest.raises(Exception):  # noqa: B017 (each store refuses in its own words)
        catalog.set_file("id-missing", IndexedFile("a.md", "h1", 1), "# a.md h1")


def test_removing_a_collection_forgets_its_files(catalog: Catalog) -> None:
    catalog.add(collection("notes"))
    catalog.set_file("id-notes", IndexedFile("a.md", "h1", 2), "# a.md h1")
    catalog.remove("id-notes")
    assert catalog.get("ns", "notes") is None
    assert catalog.files("id-notes") == {}
    catalog.add(collection("notes"))  # the name is free again, with no files
    assert catalog.files("id-notes") == {}


def test_a_file_is_kept_with_the_text_it_was_indexed_from(catalog: Catalog) -> None:
    catalog.add(collection("notes"))
    catalog.add(collection("adr"))
    catalog.set_file("id-notes", IndexedFile("a.md", "h1", 2), "# A\n\nfirst")
    catalog.set_file("id-adr", IndexedFile("a.md", "h9", 1), "# other A")
    assert catalog.text("id-notes", "a.md") == "# A\n\nfirst"
    catalog.set_file("id-notes", IndexedFile("a.md", "h2", 3), "# A\n\nsecond ✓")
    assert catalog.text("id-notes", "a.md") == "# A\n\nsecond ✓"
    assert catalog.text("id-adr", "a.md") == "# other A"
    assert catalog.text("id-notes", "missing.md") is None
    catalog.remove_file("id-notes", "a.md")
    assert catalog.text("id-notes", "a.md") is None
    catalog.remove("id-adr")
    assert catalog.text("id-adr", "a.md") is None
