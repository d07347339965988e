"""What every part of the memory is given besides the ledger ports it uses."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from service.domain.memory.indexes import Indexes
from service.domain.memory.preparation import Preparer


@dataclass(eq=False)
class Part:
    """A part of the memory: it changes stored entries in the ledger, then in ``indexes``
    (holding their lock from one to the other), entries made ready by ``preparer``."""

    indexes: Indexes
    """The vector and keyword indexes, and the lock every change holds."""
    preparer: Preparer
    """Chunks, embeds and bounds-checks the entries the part stores."""
    clock: Callable[[], float] = field(default=time.time, kw_only=True)
    """The time each change is recorded at."""
