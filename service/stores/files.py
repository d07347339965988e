"""Reading files under a collection root, never outside it."""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from service.domain.collections import Lines, leaves_root
from service.domain.globs import glob_match, may_contain
from service.errors import Forbidden

CHUNK = 1 << 20
"""Bytes read at a time when a file is read by lines."""
SEPARATOR = re.compile(rb"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e]|\xc2\x85|\xe2\x80[\xa8\xa9]")
"""The line ends of ``str.splitlines`` as UTF-8 bytes. Each begins with an ASCII or a lead
byte, which no other character's bytes run across, so the bytes split where the decoded
text (bad bytes replaced) would."""
_ENDS_WITH_SEPARATOR = re.compile(rb"(?:" + SEPARATOR.pattern + rb")\Z")
_SINGLE_ENDS = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")
_MULTI_ENDS = (b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9")
_OPEN_ENDS = (b"\xe2\x80", b"\r", b"\xc2", b"\xe2")
"""Tails of a chunk that may be the start of a line end the next chunk finishes."""


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

    def read_lines(
        self, root: str, relative: str, first: int, count: int | None, head: int = 0
    ) -> Lines | None:
        target = resolve_inside(Path(root), relative)
        if not target.is_file():
            return None
        try:
            with target.open("rb") as stream:
                return read_lines(stream, first, count, head)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None


def read_lines(stream: BinaryIO, first: int, count: int | None, head: int = 0) -> Lines:
    """Lines ``first`` to ``first + count - 1`` and the first ``head`` lines of ``stream``,
    decoded; the lines before and after those are only counted."""
    last = None if count is None else max(head, first + count - 1)
    reader = _LineReader(stream)
    shown: list[str] = []
    top: list[str] = []
    number = 0
    while last is None or number < last:
        if head <= number < first - 1:  # lines before the range, past the head
            before = first - 1 - number
            passed = reader.skip(before)
            number += passed
            if passed < before:
                break  # the end of the file
            continue
        raw = reader.line()
        if raw is None:
            break
        number += 1
        text = raw.decode("utf-8", errors="replace")
        if number <= head:
            top.append(text)
        if number >= first and (count is None or number < first + count):
            shown.append(text)
    return Lines(shown, top, number + reader.count_rest())


class _LineReader:
    """A binary stream read line by line, or passed over by counting line ends."""

    def __init__(self, stream: BinaryIO) -> None:
        self._chunks = _chunks(stream)
        self._buffer = b""
        self._at = 0

    def line(self) -> bytes | None:
        """The next line without its end; None at the end of the stream."""
        pieces: list[bytes] = []
        while True:
            found = SEPARATOR.search(self._buffer, self._at)
            pieces.append(self._buffer[self._at : found.start() if found else None])
            if found:
                self._at = found.end()
                return b"".join(pieces)
            if not self._next():
                return b"".join(pieces) if any(pieces) else None

    def skip(self, lines: int) -> int:
        """Pass over up to ``lines`` lines; how many there were."""
        passed = 0
        while True:
            ends = _line_ends(self._buffer, self._at)
            if passed + ends >= lines:
                for found in SEPARATOR.finditer(self._buffer, self._at):
                    passed += 1
                    if passed == lines:
                        self._at = found.end()
                        return passed
            passed += ends
            unended = _unended(self._buffer, self._at)
            if not self._next():
                return passed + unended

    def count_rest(self) -> int:
        """Lines from here to the end of the stream."""
        return self.skip(sys.maxsize)

    def _next(self) -> bool:
        """Move on to the next chunk; False at the end of the stream."""
        self._buffer, self._at = next(self._chunks, b""), 0
        return bool(self._buffer)


def _line_ends(data: bytes, start: int) -> int:
    """Line ends in ``data[start:]``. Finding a byte is much faster than counting it, so
    the rarer ends are counted only when there are some."""
    ends = data.count(b"\n", start)
    if data.find(b"\r", start) >= 0:
        ends -= data.count(b"\r\n", start)
    ends += sum(data.count(end, start) for end in _SINGLE_ENDS if data.find(end, start) >= 0)
    return ends + sum(
        data.count(end, start) for end in _MULTI_ENDS if data.find(end[-1:], start) >= 0
    )


def _unended(data: bytes, start: int) -> int:
    """1 when ``data[start:]`` ends in a line with no line end, else 0."""
    return int(
        len(data) > start and not _ENDS_WITH_SEPARATOR.search(data, max(start, len(data) - 3))
    )


def _chunks(stream: BinaryIO) -> Iterator[bytes]:
    """The stream in chunks of about ``CHUNK`` bytes, none ending inside a line end."""
    carry = b""
    while chunk := stream.read(CHUNK):
        data = carry + chunk
        keep = next((len(tail) for tail in _OPEN_ENDS if data.endswith(tail)), 0)
        carry = data[len(data) - keep :]
        if len(data) > keep:
            yield data[: len(data) - keep]
    if carry:
        yield carry
