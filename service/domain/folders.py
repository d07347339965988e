"""What a listing of a collection's folder finds, and what it leaves out."""

from __future__ import annotations

from dataclasses import dataclass, field

LEAVES = "leaves the collection folder"
"""Why a file reached through a link pointing out of its folder is skipped."""


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
