"""Files held in memory, by root and relative path."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from pathlib import PurePosixPath

from service.domain.collections.catalog import leaves_root
from service.domain.collections.globs import glob_match
from service.domain.model import Listing
from service.errors import Forbidden


class FakeFiles:
    """``{root: {relative path: bytes}}``; the folders are the roots, the folders that hold
    them and the folders their files' paths imply. Masks are read by
    ``service.domain.collections.globs``, as the real store does.

    For tests of what a scan meets on a real disk: ``failing`` maps ``root/relative`` to the
    OSError reading it raises (permission denied), and ``after_list``, when set, is called
    after each listing (a file removed between the listing and its reading)."""

    def __init__(self, roots: dict[str, dict[str, bytes]] | None = None) -> None:
        self.roots: dict[str, dict[str, bytes]] = {
            posixpath.normpath(root): {_normal(rel): data for rel, data in files.items()}
            for root, files in (roots or {}).items()
        }
        self.failing: dict[str, OSError] = {}
        self.after_list: Callable[[], None] | None = None

    def folder(self, path: str) -> str | None:
        path = posixpath.normpath(path)
        for root, files in self.roots.items():
            if path == root or root.startswith(path.rstrip("/") + "/"):
                return path
            if path.startswith(root + "/"):
                inner = path[len(root) + 1 :] + "/"
                if any(rel.startswith(inner) for rel in files):
                    return path
        return None

    def list(self, root: str, mask: str, *, limit: int | None = None) -> Listing:
        files = self.roots.get(posixpath.normpath(root), {})
        paths = sorted(rel for rel in files if glob_match(mask, rel))
        if self.after_list is not None:
            self.after_list()
        if limit is not None and len(paths) > limit:
            return Listing(paths[: limit + 1], complete=False)
        return Listing(paths)

    def size(self, root: str, relative: str) -> int | None:
        data = self._data(root, relative)
        return None if data is None else len(data)

    def read(self, root: str, relative: str, *, max_bytes: int | None = None) -> bytes | None:
        data = self._data(root, relative)
        if data is None or max_bytes is None:
            return data
        return data[: max_bytes + 1]

    def _data(self, root: str, relative: str) -> bytes | None:
        if leaves_root(relative):
            raise Forbidden(f"path {relative!r} leaves the collection root")
        root = posixpath.normpath(root)
        if (error := self.failing.get(f"{root}/{_normal(relative)}")) is not None:
            raise error
        return self.roots.get(root, {}).get(_normal(relative))


def _normal(relative: str) -> str:
    return PurePosixPath(relative).as_posix()
