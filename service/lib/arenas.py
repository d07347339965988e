"""Fewer glibc malloc arenas for the server process.

glibc gives each thread that allocates while another holds an arena an arena of its own, up
to eight per core, and an arena's freed memory is seldom returned: a server whose read,
write, model and index threads all handle texts of a megabyte grows by the arenas it
touches. Measured with the fairness walk (``tests/e2e/test_fairness.py``, 2 cores): over the
attack the server's resident memory grew 360 to 510 MB with glibc's default (anonymous: 340
to 490 MB), 277 and 298 MB with two arenas (anonymous: 256 and 275 MB), at the same speed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

ARENAS = 2
M_ARENA_MAX = -8
"""``mallopt``'s parameter for the most arenas (glibc's malloc.h)."""


def fewer_arenas(arenas: int = ARENAS) -> bool:
    """Hold this process's malloc to ``arenas`` arenas, unless ``MALLOC_ARENA_MAX`` says
    otherwise; True when glibc took it (False elsewhere: another C library, or set already)."""
    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_ARENA_MAX, arenas))
