"""Reading files under a collection root, never outside it."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path, PurePosixPath

from service.domain.collections.catalog import leaves_root
from service.domain.collections.folders import LEAVES
from service.domain.collections.globs import glob_match, may_contain
from service.domain.model import Listing
from service.errors import Forbidden

NOT_REGULAR = "not a regular file"
_OPEN = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW
"""A FIFO opens without waiting for a writer; a target swapped for a link fails."""


def resolve_inside(root: Path, relative: str) -> Path:
    """The file ``relative`` names under ``root``; Forbidden if it would leave the root
    (an absolute path, ``..``, or a symlink pointing out), OSError on a link loop."""
    if leaves_root(relative):
        raise Forbidden(f"path {relative!r} leaves the collection root")
    try:
        base = root.resolve()
        target = (base / PurePosixPath(relative)).resolve()
    except RuntimeError as exc:  # Python 3.11 reports a link loop so
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), relative) from exc
    if not target.is_relative_to(base):
        raise Forbidden(f"path {relative!r} leaves the collection root")
    return target


def list_files(root: Path, mask: str, limit: int | None = None) -> Listing:
    """The regular files under ``root`` matching the glob ``mask``; what matches but is
    not one, or lies outside the root once resolved, is skipped with the reason, as are
    folders that cannot be read. Linked folders are not entered, nor folders where nothing
    could match. With ``limit``, stops once more than ``limit`` files match."""
    base = root.resolve()
    paths: list[str] = []
    skipped: list[tuple[str, str]] = []

    def unreadable(error: OSError) -> None:
        folder = Path(error.filename or base)
        inside = folder.relative_to(base).as_posix() if folder.is_relative_to(base) else "."
        skipped.append((inside, f"a folder that cannot be read ({error.strerror})"))

    matched = 0
    for folder, folders, names in os.walk(base, onerror=unreadable):
        inside = PurePosixPath(Path(folder).relative_to(base).as_posix())
        folders[:] = [f for f in folders if may_contain(mask, str(inside / f))]
        for name in names:
            relative = str(inside / name)
            if not glob_match(mask, relative):
                continue
            matched += 1
            if limit is not None and matched > limit:
                return Listing(sorted(paths), sorted(skipped), complete=False)
            if (why := _unlisted(base / relative, base)) is None:
                paths.append(relative)
            else:
                skipped.append((relative, why))
    return Listing(sorted(paths), sorted(skipped))


def _unlisted(path: Path, base: Path) -> str | None:
    """Why ``path`` is not a regular file whose real location is under ``base``, or None:
    ``/proc`` files vanish, links point out, loop or lead nowhere."""
    try:
        real = path.resolve(strict=True)
        mode = real.stat().st_mode
    except FileNotFoundError:
        return "gone, or a link to nothing"
    except RuntimeError:  # Python 3.11 reports a link loop so
        return "a link loop"
    except OSError as exc:
        return f"cannot be resolved ({exc.strerror})"
    if not real.is_relative_to(base):
        return LEAVES
    return None if stat.S_ISREG(mode) else NOT_REGULAR


class LocalFiles:
    """The ``Files`` port on this machine's disk."""

    def folder(self, path: str) -> str | None:
        try:
            found = Path(os.path.expanduser(path))
            return str(found.resolve()) if found.is_dir() else None
        except (OSError, RuntimeError, ValueError):  # a name too long, a loop, a NUL byte
            return None

    def list(self, root: str, mask: str, *, limit: int | None = None) -> Listing:
        return list_files(Path(root), mask, limit)

    def size(self, root: str, relative: str) -> int | None:
        target = resolve_inside(Path(root), relative)
        try:
            status = target.stat()
        except (FileNotFoundError, NotADirectoryError):
            return None
        return status.st_size if stat.S_ISREG(status.st_mode) else None

    def read(self, root: str, relative: str, *, max_bytes: int | None = None) -> bytes | None:
        target = resolve_inside(Path(root), relative)
        try:
            if not stat.S_ISREG(os.stat(target).st_mode):
                return None  # a folder, a FIFO, a device: never opened
            handle = os.open(target, _OPEN)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None  # gone since it was listed
        with os.fdopen(handle, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                return None  # replaced since the check
            return file.read() if max_bytes is None else file.read(max_bytes + 1)
