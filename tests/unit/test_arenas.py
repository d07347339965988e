"""The server holds glibc's malloc to a few arenas, unless the operator set their number."""

from __future__ import annotations

import pytest

from service.lib.arenas import fewer_arenas


def test_glibc_takes_the_bound() -> None:
    # This machine's C library is glibc; mallopt answers 1 when it takes a setting.
    assert fewer_arenas(2) is True


def test_an_operator_s_malloc_arena_max_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert fewer_arenas(2) is False
