"""How a server process's interpreter is shared between its threads.

Python runs one thread's code at a time. A thread waiting for the interpreter gets it when
the running one reaches a switch (after ``SWITCH_SECONDS``) or waits on something; a request
waits for it at every step that hands it back (each call to an index, the model, the
network), so the length of a turn is added to another caller's request again and again.
Measured with the fairness walk (``tests/e2e/test_fairness.py``, 2 cores): another key's
search p95 during the attack 0.068 s with Python's 5 ms turns, 0.047 s with 1 ms turns; the
load benchmark's searches a second within its noise (docs/benchmarks-log/search-time.md).

A full collection of cycles looks at every object the interpreter tracks while holding it:
with the model, the stores and their libraries loaded (some 150,000 objects), one took about
100 ms on two cores, and every other request waited for it (a search of 7 ms answered in
120). Objects made before the server serves are there for its whole life; once ``settle``d,
collections look only at those made since (a full one: 4 ms).

The youngest generation is collected when the objects made and not yet freed since its last
collection reach a threshold (Python's: 700). A search of 100 results holds a few thousand
objects until it answers, so with 700 collections ran inside nearly every search, each
looking at what the search was still using; once settled, the threshold is ``YOUNG``, and
a search's objects are mostly freed, as they always are, when it ends, unlooked at.
"""

from __future__ import annotations

import gc
import sys

SWITCH_SECONDS = 0.001
"""How long a thread runs before another waiting for the interpreter may take it (Python's
default: 0.005)."""


def short_turns(seconds: float = SWITCH_SECONDS) -> None:
    """Threads of this process take the interpreter in turns of ``seconds``."""
    sys.setswitchinterval(seconds)


YOUNG = 20_000
"""Objects made and not freed that start a collection of the youngest generation, once
settled (Python's default: 700). A collection of 20,000 live objects takes about half a
millisecond (1 ms at most in 20, on two busy cores)."""
_before: list[tuple[int, int, int]] = []
"""The thresholds ``settle`` replaced, for ``unsettle`` (one at most)."""


def settle() -> int:
    """Collect what is garbage now, then keep every object left out of later collections
    (they are still freed when nothing refers to them), and collect the youngest
    generation after ``YOUNG`` objects; the objects kept so."""
    gc.collect()
    gc.freeze()
    young, *older = gc.get_threshold()
    if 0 < young < YOUNG:  # 0: collections are off, and stay so
        _before[:] = [gc.get_threshold()]
        gc.set_threshold(YOUNG, *older)
    return gc.get_freeze_count()


def unsettle() -> None:
    """Let collections look at the objects ``settle`` kept out again, as often as before: a
    process that closes a server and goes on (tests open many) leaves no cycle of it
    uncollected."""
    gc.unfreeze()
    if _before and gc.get_threshold()[0] == YOUNG:
        gc.set_threshold(*_before.pop())
