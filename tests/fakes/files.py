"""Files held in memory, by root and relative path."""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath

from service.domain.collections import leaves_root
from service.domain.globs import glob_match
from service.errors import Forbidden


class FakeFiles:
    """``{root: {relative path: bytes}}``; the folders are the roots and the folders their
    files' paths imply. Masks are read by ``service.domain.globs``, as the real store does."""

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
        files = self.roots.get(posixpath.normpath(root), {})
        return sorted(rel for rel in files if glob_match(mask, rel))

    def size(self, root: str, relative: str) -> int | None:
        data = self.read(root, relative)
        return None if data is None else len(data)

    def read(self, root: str, relative: str) -> bytes | None:
        return self._data(root, relative)

    def _data(self, root: str, relative: str) -> bytes | None:
        if leaves_root(relative):
            raise Forbidden(f"path {relative!r} leaves the collection root")
        return self.roots.get(posixpath.normpath(root), {}).get(_normal(relative))


def _normal(relative: str) -> str:
    return PurePosixPath(relative).as_posix()
