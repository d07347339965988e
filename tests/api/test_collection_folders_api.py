"""Where collections may read, how much, and what a scan does with files it cannot index:
roots, refused folders, bounds and skipped files, over the Files fake."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.bootstrap import Runtime
from tests.apps import serving
from tests.fakes import FakeFiles
from tests.http import AS_ADMIN, AS_AGENT, KEYS, problem

Client = Callable[..., TestClient[Litestar]]

ROOT = "/srv/notes"
PEOPLE = b"Alice owns billing.\n\nBob owns mobile.\n"
OUTSIDE = "is outside the folders collections may read (STRATA_COLLECTION_ROOTS): /srv"
SYSTEM = "is, or holds, a system folder or the service's own data, which no collection may read"


@pytest.fixture
def files() -> FakeFiles:
    return FakeFiles(
        {
            ROOT: {"adr/012-bus.md": b"# Event bus\n\nWe adopt NATS.\n", "people.md": PEOPLE},
            "/home/other/notes": {"diary.md": b"# Dear diary\n"},
            "/etc/app": {"README.md": b"# App\n"},
            "/var/notes": {"a.md": b"# A\n"},
        }
    )


@pytest.fixture
def client_for(runtime_for: Callable[..., Runtime]) -> Iterator[Client]:
    """Clients with the test keys and other ``STRATA_*`` settings given as keywords."""
    with ExitStack() as stack:
        yield lambda **env: stack.enter_context(serving(runtime_for(api_keys=KEYS, **env)))


@pytest.fixture
def client(client_for: Client) -> TestClient[Litestar]:
    """Collections may be registered under ``/srv``."""
    return client_for()


def register(
    client: TestClient[Litestar], path: str, name: str = "notes", *, keys: bool = True
) -> Any:
    body = {"name": name, "path": path, "namespace": "one"}
    return client.post("/v1/collections", json=body, headers=AS_ADMIN if keys else None)


def added(client: TestClient[Litestar], path: str = ROOT, *, keys: bool = True) -> dict[str, Any]:
    response = register(client, path, keys=keys)
    assert response.status_code == 201, response.text
    scanned: dict[str, Any] = response.json()
    return scanned


def refused(response: Any) -> str:
    """The message of a 422 naming ``path``, and only it."""
    body = problem(response, 422)
    assert [e["field"] for e in body["errors"]] == ["path"]
    message: str = body["errors"][0]["message"]
    return message


def test_a_folder_inside_a_root_is_registered(client_for: Client) -> None:
    assert added(client_for())["added"] == 2
    assert added(client_for(collection_roots=ROOT))["added"] == 2  # the root itself


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/home/other/notes",
        "/home/other/missing",
        "/srv/../home/other/notes",
        "/srv/notes/../../etc/app",
        "/srvnotes",
        "/srv-other/notes",
    ],
)
def test_a_folder_outside_the_roots_is_refused_alike_whether_it_exists_or_not(
    client: TestClient[Litestar], path: str
) -> None:
    assert refused(register(client, path)) == f"{path} {OUTSIDE}"
    assert client.get("/v1/collections", headers=AS_ADMIN).json()["collections"] == []


@pytest.mark.parametrize("path", ["/", "/etc/app", "/etc", "/var", "/proc", "/usr/share"])
def test_system_folders_and_those_holding_one_are_refused_even_under_a_root(
    client_for: Client, path: str
) -> None:
    """``/`` as a root lets collections read folders of notes anywhere, but never ``/``
    itself, a system folder, or a folder holding one (``/var`` holds ``/var/run``)."""
    client = client_for(collection_roots="/")
    assert (
        refused(register(client, path))
        == f"{path} {SYSTEM}; collections may read other folders under /"
    )
    assert added(client)["added"] == 2
    listed_etc = client_for(collection_roots="/etc")
    assert refused(register(listed_etc, "/etc/app")).startswith(f"/etc/app {SYSTEM}")


def test_the_data_directory_is_refused_and_so_is_a_folder_holding_it(client_for: Client) -> None:
    client = client_for(data_dir="/srv/notes/strata-data")
    assert refused(register(client, ROOT)).startswith(f"{ROOT} {SYSTEM}")
    assert refused(register(client, "/srv")).startswith(f"/srv {SYSTEM}")


def test_without_roots_collections_are_off(client_for: Client) -> None:
    off = "is not open to collections: STRATA_COLLECTION_ROOTS names no folder"
    assert refused(register(client_for(collection_roots=""), ROOT)) == f"{ROOT} {off}"
    # With keys, no roots unless an operator names them.
    assert refused(register(client_for(collection_roots=None), ROOT)) == f"{ROOT} {off}"


def test_without_keys_the_roots_default_to_the_home_directory(
    runtime_for: Callable[..., Runtime], files: FakeFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "/home/other")
    runtime = runtime_for(collection_roots=None)
    with serving(runtime) as client:
        assert added(client, "/home/other/notes", keys=False)["added"] == 1
        outside = "is outside the folders collections may read (STRATA_COLLECTION_ROOTS): "
        assert refused(register(client, ROOT, "x", keys=False)) == f"{ROOT} {outside}/home/other"


def test_a_folder_with_too_many_files_is_not_registered(client_for: Client) -> None:
    client = client_for(max_collection_files="1")
    assert refused(register(client, ROOT)) == (
        f"{ROOT} holds more than 1 files matching '**/*.md' (STRATA_MAX_COLLECTION_FILES); "
        "name a smaller folder or a narrower mask"
    )
    problem(client.get("/v1/collections/notes", headers=AS_ADMIN), 404)


def test_a_rescan_past_the_file_bound_changes_nothing(client_for: Client, files: FakeFiles) -> None:
    client = client_for(max_collection_files="2")
    added(client)
    files.roots[ROOT]["new.md"] = b"# New\n"
    body = problem(client.post("/v1/collections/notes/update", headers=AS_ADMIN), 409)
    assert body["detail"] == (
        f"the folder of collection 'notes', {ROOT}, holds more than 2 files matching "
        "'**/*.md' (STRATA_MAX_COLLECTION_FILES); nothing was changed"
    )
    assert client.get("/v1/collections/notes", headers=AS_AGENT).json()["files"] == 2


def test_a_rescan_of_a_folder_the_roots_no_longer_hold_changes_nothing(
    served: TestClient[Litestar], runtime: Runtime, files: FakeFiles
) -> None:
    client = served
    added(client)
    domain = runtime.services.collections.collections
    domain.rules = dataclasses.replace(domain.rules, roots=("/home",))  # as after a restart
    files.roots[ROOT]["people.md"] = b"Carol owns billing.\n"
    body = problem(client.post("/v1/collections/notes/update", headers=AS_ADMIN), 409)
    assert body["detail"] == (
        f"the folder of collection 'notes', {ROOT}, is outside the folders collections may "
        "read (STRATA_COLLECTION_ROOTS): /home; nothing was changed"
    )
    doc = client.get("/v1/documents", params={"path": "notes/people.md"}, headers=AS_AGENT)
    assert "Bob" in doc.json()["text"]


@pytest.fixture
def runtime(runtime_for: Callable[..., Runtime]) -> Runtime:
    return runtime_for(api_keys=KEYS)


@pytest.fixture
def served(runtime: Runtime) -> Iterator[TestClient[Litestar]]:
    with serving(runtime) as client:
        yield client


def skipped(scan: dict[str, Any]) -> list[tuple[str, str]]:
    return [(s["path"], s["reason"]) for s in scan["skipped"]]


def test_files_a_scan_cannot_index_are_skipped_with_the_reason(
    client_for: Client, files: FakeFiles
) -> None:
    notes = files.roots[ROOT]
    notes["big.md"] = b"x" * 101
    notes["latin1.md"] = "caf\xe9\n".encode("latin-1")
    notes["binary.md"] = b"\x00\x01\x02"
    notes["locked.md"] = b"# Locked\n"
    files.failing[f"{ROOT}/locked.md"] = PermissionError(13, "Permission denied")
    notes["gone.md"] = b"# Gone\n"

    def vanish() -> None:  # between the listing and the reading
        del notes["gone.md"]

    files.after_list = vanish
    scan = added(client_for(max_file_bytes="100"))
    assert (scan["added"], scan["collection"]["files"]) == (2, 2)
    assert skipped(scan) == [
        ("notes/big.md", "101 bytes, over the 100-byte file bound"),
        ("notes/binary.md", "not text: it holds NUL bytes"),
        ("notes/gone.md", "gone, or no longer a regular file"),
        ("notes/latin1.md", "not UTF-8 text (byte 3)"),
        ("notes/locked.md", "cannot be read (Permission denied)"),
    ]


def test_a_skipped_file_keeps_what_an_earlier_scan_indexed(
    served: TestClient[Litestar], files: FakeFiles
) -> None:
    """A file that cannot be read now (locked, grown past the bound, vanished mid-scan)
    is still served as last indexed; one removed from the folder leaves the index."""
    added(served)
    files.roots[ROOT]["people.md"] = b"Carol owns billing.\n" * 100_000
    files.failing[f"{ROOT}/adr/012-bus.md"] = PermissionError(13, "Permission denied")
    scan = served.post("/v1/collections/notes/update", headers=AS_ADMIN).json()
    assert (scan["changed"], scan["removed"], scan["collection"]["files"]) == (0, 0, 2)
    assert [path for path, _ in skipped(scan)] == ["notes/adr/012-bus.md", "notes/people.md"]
    doc = served.get("/v1/documents", params={"path": "notes/people.md"}, headers=AS_AGENT)
    assert "Bob" in doc.json()["text"]
    del files.roots[ROOT]["people.md"]
    again = served.post("/v1/collections/notes/update", headers=AS_ADMIN).json()
    assert (again["removed"], again["collection"]["files"]) == (1, 1)
