"""The files port's contract: FakeFiles and LocalFiles (on a temporary folder)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from service.domain.model import Listing
from service.domain.ports import Files
from service.errors import Forbidden
from service.stores.files import LocalFiles
from tests.fakes import FakeFiles

Tree = Callable[[dict[str, bytes]], tuple[Files, str]]
"""Makes a root holding these files; gives the port over it and the root."""

NOTES = {
    "a.md": b"# A\n",
    "b.txt": b"plain",
    "sub/c.md": b"# C, deeper\n",
    "sub/deeper/d.md": b"",
    "sub-e.md": b"e",
    "UPPER.MD": b"shouting",
}


@pytest.fixture(params=["fake", "local"])
def tree(request: pytest.FixtureRequest, tmp_path: Path) -> Tree:
    def make(files: dict[str, bytes]) -> tuple[Files, str]:
        if request.param == "fake":
            return FakeFiles({"/srv/notes": files}), "/srv/notes"
        root = tmp_path / "notes"
        root.mkdir()
        for relative, data in files.items():
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_bytes(data)
        return LocalFiles(), str(root.resolve())

    return make


def test_a_folder_is_known_by_its_absolute_path(tree: Tree) -> None:
    files, root = tree(NOTES)
    assert files.folder(root) == root
    assert files.folder(root + "/") == root
    assert files.folder(root + "/sub") == root + "/sub"
    assert files.folder(root + "/sub/../sub/deeper") == root + "/sub/deeper"
    assert files.folder(root + "/a.md") is None
    assert files.folder(root + "/missing") is None


@pytest.mark.parametrize(
    ("mask", "found"),
    [
        ("*.md", ["a.md", "sub-e.md"]),
        ("**/*.md", ["a.md", "sub-e.md", "sub/c.md", "sub/deeper/d.md"]),
        ("sub/*.md", ["sub/c.md"]),
        ("sub/**/*.md", ["sub/c.md", "sub/deeper/d.md"]),
        ("*", ["UPPER.MD", "a.md", "b.txt", "sub-e.md"]),
        ("?.*", ["a.md", "b.txt"]),
        ("[ab].*", ["a.md", "b.txt"]),
        ("*.MD", ["UPPER.MD"]),
        ("sub", []),
        ("*.pdf", []),
        # Globstar: `**/` is zero or more folders, a last `**` every file below.
        ("**", ["UPPER.MD", "a.md", "b.txt", "sub-e.md", "sub/c.md", "sub/deeper/d.md"]),
        ("sub/**", ["sub/c.md", "sub/deeper/d.md"]),
        ("**/deeper/*.md", ["sub/deeper/d.md"]),
        ("*/*.md", ["sub/c.md"]),
        ("su**/*.md", ["sub/c.md"]),
        ("./sub//*.md", ["sub/c.md"]),
        ("../notes/*.md", []),
    ],
)
def test_files_are_listed_by_glob_sorted(tree: Tree, mask: str, found: list[str]) -> None:
    files, root = tree(NOTES)
    assert files.list(root, mask) == Listing(found)


def test_a_root_with_no_files_lists_none(tree: Tree) -> None:
    files, root = tree({})
    assert files.list(root, "**/*.md") == Listing([])
    assert files.list(root + "/missing", "**/*.md").paths == []


def test_a_listing_stops_past_its_limit(tree: Tree) -> None:
    files, root = tree(NOTES)
    assert files.list(root, "**/*.md", limit=4) == Listing(
        ["a.md", "sub-e.md", "sub/c.md", "sub/deeper/d.md"]
    )
    stopped = files.list(root, "**/*.md", limit=2)
    assert not stopped.complete
    assert len(stopped.paths) + len(stopped.skipped) <= 3
    assert set(stopped.paths) <= set(NOTES)


def test_a_read_can_be_bounded(tree: Tree) -> None:
    files, root = tree(NOTES)
    assert files.read(root, "sub/c.md", max_bytes=3) == b"# C,"
    assert files.read(root, "sub/c.md", max_bytes=100) == b"# C, deeper\n"
    assert files.read(root, "missing.md", max_bytes=3) is None


def test_a_file_is_read_with_its_size(tree: Tree) -> None:
    files, root = tree(NOTES)
    assert files.read(root, "sub/c.md") == b"# C, deeper\n"
    assert files.size(root, "sub/c.md") == len(b"# C, deeper\n")
    assert files.read(root, "sub/deeper/d.md") == b""
    assert files.size(root, "sub/deeper/d.md") == 0
    assert files.read(root, "./sub//c.md") == b"# C, deeper\n"


@pytest.mark.parametrize("relative", ["missing.md", "sub", "sub/missing.md", "a.md/x", ""])
def test_no_file_there_reads_as_none(tree: Tree, relative: str) -> None:
    files, root = tree(NOTES)
    assert files.read(root, relative) is None
    assert files.size(root, relative) is None


@pytest.mark.parametrize(
    "relative", ["../notes/a.md", "sub/../../x", "/etc/passwd", "sub\\c.md", "a\x00.md"]
)
def test_a_path_leaving_the_root_is_forbidden(tree: Tree, relative: str) -> None:
    files, root = tree(NOTES)
    with pytest.raises(Forbidden):
        files.read(root, relative)
    with pytest.raises(Forbidden):
        files.size(root, relative)


# Symbolic links: the fake has none, so these hold LocalFiles alone to the contract.


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A root with a link to a file outside it, one to a folder outside it, and one to a
    file inside it."""
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "secret.md").write_text("secret")
    (outside / "folder" / "more.md").write_text("more secret")
    root = tmp_path / "root"
    root.mkdir()
    (root / "own.md").write_text("own")
    (root / "out.md").symlink_to(outside / "secret.md")
    (root / "away").symlink_to(outside / "folder", target_is_directory=True)
    (root / "alias.md").symlink_to(root / "own.md")
    return root


def test_links_out_of_the_root_are_skipped_with_the_reason(linked: Path) -> None:
    assert LocalFiles().list(str(linked), "**/*.md") == Listing(
        ["alias.md", "own.md"], [("out.md", "leaves the collection folder")]
    )
    assert LocalFiles().list(str(linked), "away/*.md") == Listing([])


@pytest.mark.parametrize("relative", ["out.md", "away/more.md"])
def test_links_out_of_the_root_are_forbidden(linked: Path, relative: str) -> None:
    with pytest.raises(Forbidden):
        LocalFiles().read(str(linked), relative)
    with pytest.raises(Forbidden):
        LocalFiles().size(str(linked), relative)


def test_a_link_inside_the_root_reads_its_target(linked: Path) -> None:
    assert LocalFiles().read(str(linked), "alias.md") == b"own"


def test_a_linked_folder_is_known_by_its_real_path(linked: Path, tmp_path: Path) -> None:
    assert LocalFiles().folder(str(linked / "away")) == str((tmp_path / "outside/folder").resolve())


def test_listing_skips_what_cannot_be_resolved_or_is_no_file(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.md").write_text("# A\n")
    (root / "loop.md").symlink_to(root / "loop.md")
    (root / "nowhere.md").symlink_to(root / "missing.md")
    os.mkfifo(root / "pipe.md")
    (root / "folder.md").mkdir()
    assert LocalFiles().list(str(root), "**/*.md") == Listing(
        ["a.md"],
        [
            ("loop.md", "a link loop"),
            ("nowhere.md", "gone, or a link to nothing"),
            ("pipe.md", "not a regular file"),
        ],
    )


def test_what_is_no_regular_file_reads_as_none_without_waiting(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    os.mkfifo(root / "pipe.md")  # opening it for reading would wait for a writer
    (root / "folder.md").mkdir()
    for name in ("pipe.md", "folder.md"):
        assert LocalFiles().read(str(root), name) is None
        assert LocalFiles().size(str(root), name) is None


def test_a_link_loop_cannot_be_read(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "loop.md").symlink_to(root / "loop.md")
    with pytest.raises(OSError):
        LocalFiles().read(str(root), "loop.md")


def test_the_folders_holding_a_root_are_folders(tree: Tree) -> None:
    files, root = tree(NOTES)
    parent = os.path.dirname(root)
    assert files.folder(parent) == parent
    assert files.folder("/") == "/"
