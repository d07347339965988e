"""Reading files under a collection root, never outside it."""

from __future__ import annotations

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
