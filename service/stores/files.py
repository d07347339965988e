"""Reading files under a collection root, never outside it."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from service.domain.collections import leaves_root
from service.domain.globs import glob_match, may_contain
from service.errors import Forbidden


def resolve_inside(root: Path, relative: str) -> Path:
    """The file ``relative`` names under ``root``; Forbidden if it would leave the root
    (an absolute path, ``..``, or a symlink pointing out)."""
    if leaves_root(relative):
        raise Forbidden(f"path {relative!r} leaves the collection root")
    base = root.resolve()
    target = (base / PurePosixPath(relative)).resolve()
    if not target.is_relative_to(base):
        raise Forbidden(f"path {relative!r} leaves the collection root")
    return target


def list_files(root: Path, mask: str) -> Iterator[str]:
    """Relative POSIX paths of the regular files under ``root`` matching the glob ``mask``,
    skipping anything whose real location is outside the root. Linked folders are not
    entered, nor folders where nothing could match."""
    base = root.resolve()
    for folder, folders, names in os.walk(base):
        inside = PurePosixPath(Path(folder).relative_to(base).as_posix())
        folders[:] = [f for f in folders if may_contain(mask, str(inside / f))]
        for name in names:
            relative = str(inside / name)
            if glob_match(mask, relative) and _inside(base / relative, base):
                yield relative


def _inside(path: Path, base: Path) -> bool:
    """A regular file whose real location is under ``base``; a file that vanishes or cannot
    be resolved meanwhile (``/proc``, a link loop) is left out."""
    try:
        return path.is_file() and path.resolve().is_relative_to(base)
    except (OSError, RuntimeError):
        return False


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
