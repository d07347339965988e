"""Files held in memory, by root and relative path."""

from __future__ import annotations

import posixpath
from fnmatch import fnmatchcase
from pathlib import PurePosixPath

from service.errors import Forbidden


class FakeFiles:
    """``{root: {relative path: bytes}}``; the folders are the roots and the folders their
    files' paths imply. Globs match as ``pathlib`` does: ``*`` within one path component,
    ``**`` for any number of folders."""

    def __init__(self, roots: dict[str, dict[str, bytes]] | None = None) -> None:
        self.roots: dict[str, dict[str, bytes]] = {
            posixpath.normpath(root): {_normal(rel): data for rel, data in files.items()}
            for root, files in (roots or {}).items()
        }

    def folder(self, path: str) -> str | None:
        path = posixpath.normpath(path)
        for root, files in self.roots.items():
            if path == root:
                return path
            if path.startswith(root + "/"):
                inner = path[len(root) + 1 :] + "/"
                if any(rel.startswith(inner) for rel in files):
                    return path
        return None

    def list(self, root: str, mask: str) -> list[str]:
        pattern = _pattern(mask)
        files = self.roots.get(posixpath.normpath(root), {})
        return sorted(rel for rel in files if _glob(rel.split("/"), pattern))

    def size(self, root: str, relative: str) -> int | None:
        data = self.read(root, relative)
        return None if data is None else len(data)

    def read(self, root: str, relative: str) -> bytes | None:
        rel = PurePosixPath(relative)
        if rel.is_absolute() or ".." in rel.parts or "\\" in relative or "\x00" in relative:
            raise Forbidden(f"path {relative!r} leaves the collection root")
        return self.roots.get(posixpath.normpath(root), {}).get(rel.as_posix())


def _normal(relative: str) -> str:
    return PurePosixPath(relative).as_posix()


def _pattern(mask: str) -> list[str]:
    parts = list(PurePosixPath(mask).parts)
    if not mask or any("**" in part and part != "**" for part in parts):
        raise ValueError(f"invalid pattern {mask!r}")
    return parts


def _glob(parts: list[str], pattern: list[str]) -> bool:
    """Whether a file's path components match the pattern's."""
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head == "**":  # any number of folders, the file name still to match
        return any(_glob(parts[i:], rest) for i in range(len(parts)))
    return bool(parts) and fnmatchcase(parts[0], head) and _glob(parts[1:], rest)
