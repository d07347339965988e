"""Which folders of the server's disk collections may read, and how much of them.

A collection's folder must lie inside one of the roots an operator configured, and may
neither be nor hold a refused folder: ``/`` and the system's folders (kernel views,
configuration, programs), and the service's own data. Paths are compared once links and
``..`` are resolved, so a link inside a root that points out leads nowhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

SYSTEM_FOLDERS = (
    # Views of the kernel and of running processes.
    "/proc",
    "/sys",
    "/dev",
    "/run",
    "/var/run",
    "/var/lock",
    # Configuration and secrets, the boot loader, the programs and their libraries.
    "/etc",
    "/boot",
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/snap",
    # macOS keeps the same under these (/etc is a link to /private/etc there).
    "/System",
    "/Library",
    "/private/etc",
    "/private/var/run",
)
"""Folders no collection may be in or hold, whatever the roots say; ``/`` holds them all."""

LEAVES = "leaves the collection folder"
"""Why a file reached through a link pointing out of its folder is skipped."""

Resolve = Callable[[str], str | None]
"""The real path of a folder (links and ``..`` resolved), None when there is no folder
there: ``Files.folder``."""


@dataclass(frozen=True)
class FolderRules:
    """Where collections may read and how much: folders inside one of ``roots`` that are
    not, and do not hold, one of ``refused``; at most ``max_files`` files each, of at most
    ``max_file_bytes`` bytes."""

    roots: tuple[str, ...]
    """The roots as configured (``STRATA_COLLECTION_ROOTS``), ``~`` expanded."""
    max_files: int
    max_file_bytes: int
    refused: tuple[str, ...] = SYSTEM_FOLDERS
    """Folders refused whatever the roots say; the service adds its data directory."""

    @property
    def shown(self) -> str:
        """The roots, for messages that say where collections may be."""
        return ", ".join(self.roots) if self.roots else "none"

    def refusal(self, folder: str, resolve: Resolve) -> str | None:
        """Why no collection may read ``folder`` (an absolute path, resolved where it
        exists), or None. The roots and refused folders are resolved by ``resolve`` on
        each call, so a changed link or setting counts at once."""
        if not self.roots:
            return "is not open to collections: STRATA_COLLECTION_ROOTS names no folder"
        place = PurePosixPath(folder)
        if not any(_within(place, root) for root in _real(self.roots, resolve)):
            return (
                "is outside the folders collections may read (STRATA_COLLECTION_ROOTS): "
                f"{self.shown}"
            )
        for refused in _real(self.refused, resolve):
            if _within(place, refused) or _within(PurePosixPath(refused), str(place)):
                return (
                    "is, or holds, a system folder or the service's own data, which no "
                    f"collection may read; collections may read other folders under {self.shown}"
                )
        return None


def _real(paths: Iterable[str], resolve: Resolve) -> set[str]:
    """Each path as written and, where it is a folder, as resolved."""
    found: set[str] = set()
    for path in paths:
        found.add(path)
        if (real := resolve(path)) is not None:
            found.add(real)
    return found


def _within(path: PurePosixPath, folder: str) -> bool:
    return PurePosixPath(folder).is_absolute() and path.is_relative_to(folder)
