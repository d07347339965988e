"""One glob component matched without backtracking: as ``fnmatch`` reads it, at any size."""

from __future__ import annotations

import re
import threading
import warnings
from fnmatch import fnmatchcase

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from service.domain.collections.globs import glob_match
from service.domain.collections.wildcards import compile_component

PATTERN_CHARS = "ab-!]^[*?\\"
NAME_CHARS = "ab-!]^[\\\n"

HANG = 120
"""Seconds after which a match is taken to hang (what it takes is no concern here)."""


def reference(pattern: str, name: str) -> bool | None:
    """What ``fnmatch`` answers, or None where it cannot read the pattern."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fnmatch's sets may warn of nested sets
        try:
            return fnmatchcase(name, pattern)
        except re.error:
            return None


@settings(max_examples=1000, deadline=None)
@given(
    st.text(alphabet=PATTERN_CHARS, max_size=10),
    st.text(alphabet=NAME_CHARS, max_size=8),
)
@example("[!]-a]", "b")
@example("[c-a-b]", "-")
@example("[a-]", "-")
@example("[]-]", "]")
@example("[!b-a]", "x")
@example("[b-a]", "b")
@example("a*b*a", "abba")
@example("[", "[")
def test_a_component_matches_as_fnmatch_does(pattern: str, name: str) -> None:
    expected = reference(pattern, name)
    assume(expected is not None)
    assert compile_component(pattern).matches(name) == expected


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=8), st.text(max_size=8))
def test_any_characters_match_as_fnmatch_does(pattern: str, name: str) -> None:
    pattern = pattern.replace("/", "")
    expected = reference(pattern, name)
    assume(expected is not None)
    assert compile_component(pattern).matches(name) == expected


@pytest.mark.parametrize(
    "pattern",
    [
        "[" * 200_000,
        "[!" * 100_000,
        "*[" * 100_000,
        "[]" * 100_000,
        "*a" * 100_000,
    ],
)
def test_a_hostile_component_is_read_once(pattern: str) -> None:
    """Patterns that cost ``fnmatch`` time in the square of their length (minutes at this
    size) or a regular expression backtracking are compiled and matched in one pass."""
    name = "a" * 200 + "b"
    matched: list[bool] = []
    # A daemon thread: one that never ends does not hold the run up.
    worker = threading.Thread(
        target=lambda: matched.append(glob_match(f"docs/{pattern}", f"docs/{name}")),
        daemon=True,
    )
    worker.start()
    worker.join(HANG)
    assert matched == [False], "still matching: it hangs"
