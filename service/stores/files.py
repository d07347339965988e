"""Reading files under a collection root, never outside it."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from service.errors import Forbidden


def resolve_inside(root: Path, relative: str) -> Path:
    """The file ``relative`` names under ``root``; Forbidden if it would leave the root
    (an absolute path, ``..``, or a symlink pointing out)."""
    rel = PurePosixPath(relative)
    if rel.is_absolute() or ".." in rel.parts or "\\" in relative or "\x00" in relative:
        raise Forbidden(f"path {relative!r} leaves the collection root")
    base = root.resolve()
    target = (base / rel).resolve()
    if not target.is_relative_to(base):
        raise Forbidden(f"path {relative!r} leaves the collection root")
    return target


def list_files(root: Path, mask: str) -> Iterator[str]:
    """Relative POSIX paths of the regular files under ``root`` matching the glob ``mask``,
    skipping anything whose real location is outside the root."""
    base = root.resolve()
    for path in sorted(base.glob(mask)):
        if path.is_file() and path.resolve().is_relative_to(base):
            yield path.relative_to(base).as_posix()


class LocalFiles:
    """The ``Files`` port on this machine's disk."""

    def folder(self, path: str) -> str | None:
        found = Path(path).expanduser()
        return str(found.resolve()) if found.is_dir() else None

    def list(self, root: str, mask: str) -> list[str]:
        return sorted(list_files(Path(root), mask))

    def size(self, root: str, relative: str) -> int | None:
        target = resolve_inside(Path(root), relative)
        try:
            status = target.stat()
        except (FileNotFoundError, NotADirectoryError):
            return None
        return status.st_size if stat.S_ISREG(status.st_mode) else None

    def read(self, root: str, relative: str) -> bytes | None:
        target = resolve_inside(Path(root), relative)
        if not target.is_file():
            return None
        try:
            return target.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None  # gone, or replaced by a folder, since the check
