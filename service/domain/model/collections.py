"""Collections of files as they are kept, their files as indexed, and a folder's files as
listed."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Collection:
    """A folder of files kept searchable in one namespace and tier."""

    id: str
    name: str
    namespace: str
    path: str
    mask: str
    tier: str
    created_at: float
    scanned_at: float | None = None


@dataclass(frozen=True)
class IndexedFile:
    path: str
    hash: str
    chunks: int


@dataclass(frozen=True)
class Listing:
    """The files of a folder that match a mask, as ``Files.list`` finds them."""

    paths: list[str]
    """Relative POSIX paths of the regular files inside the folder, sorted."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """Paths matching the mask that are not listed, each with the reason: a link whose
    target is outside the folder or cannot be resolved, a file that is not a regular one
    (a FIFO, a device), a folder that cannot be read."""
    complete: bool = True
    """False when the listing stopped at its limit: more files match than it holds."""
