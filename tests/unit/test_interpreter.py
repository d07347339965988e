"""The interpreter shared between a server's threads: short turns, and the objects held for
life kept out of the collections of cycles."""

from __future__ import annotations

import gc
import sys
import weakref
from collections.abc import Iterator

import pytest

from service.lib import interpreter


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_settle_keeps_what_lives_out_of_collections_and_unsettle_gives_it_back() -> None:
    held = [[n] for n in range(10_000)]  # tracked objects
    kept = interpreter.settle()
    # Frozen objects another thread of the test process frees leave the count: a few, not more.
    assert kept >= len(held) and kept - 100 <= gc.get_freeze_count() <= kept
    # A collection looks at none of them now: it finds fewer objects than were kept.
    assert len(gc.get_objects()) < kept
    interpreter.unsettle()
    assert gc.get_freeze_count() == 0 and len(gc.get_objects()) >= len(held)


def test_garbage_of_the_moment_is_collected_before_settling() -> None:
    class Cycle:
        def __init__(self) -> None:
            self.me = self

    made = Cycle()
    ref = weakref.ref(made)
    del made
    interpreter.settle()
    assert ref() is None  # not kept for the process's life


def test_short_turns_sets_how_long_a_thread_runs_before_another_may() -> None:
    before = sys.getswitchinterval()
    try:
        interpreter.short_turns()
        assert sys.getswitchinterval() == pytest.approx(interpreter.SWITCH_SECONDS)
        assert interpreter.SWITCH_SECONDS < 0.005  # shorter than Python's own
    finally:
        sys.setswitchinterval(before)


def test_once_settled_the_youngest_objects_are_collected_less_often_until_unsettled() -> None:
    before = gc.get_threshold()
    interpreter.settle()
    assert gc.get_threshold() == (interpreter.YOUNG, *before[1:])
    interpreter.unsettle()
    assert gc.get_threshold() == before


def test_collections_left_off_stay_off() -> None:
    gc.set_threshold(0)
    interpreter.settle()
    assert gc.get_threshold()[0] == 0
    interpreter.unsettle()
    assert gc.get_threshold()[0] == 0
