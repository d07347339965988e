"""One glob component matched without backtracking: as ``fnmatch`` reads it, at any size."""

from __future__ import annotations

import re
import sys
import threading
import warnings
from fnmatch import fnmatchcase
from types import FrameType

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from service.domain.collections.globs import glob_match
from service.domain.collections.wildcards import compile_component

PATTERN_CHARS = "ab-!]^[*?\\"
NAME_CHARS = "ab-!]^[\\\n"
SCRIPTS = ("abc", "àáâ", "αβγ", "абв", "一丁丂", "😀😁😂")
"""Runs of neighbouring characters: ASCII, Latin-1 accents, Greek, Cyrillic, CJK, astral."""

ALPHABETS = st.shared(
    st.lists(st.sampled_from(SCRIPTS), min_size=1, max_size=2).map("".join), key="alphabet"
)
"""The characters of one or two scripts, drawn once for a pattern and the name matched."""


def patterns(chars: str) -> st.SearchStrategy[str]:
    """Components of ``PATTERN_CHARS``, ``chars`` and sets over them, negated or not, with
    ranges within a script or across two, in order or reversed."""
    members = st.sampled_from("-!]^" + chars)
    pairs = st.tuples(members, members)
    ranges = st.one_of(pairs.map(sorted), pairs).map("-".join)
    sets = st.builds(
        lambda negated, inside: "[" + "!" * negated + "".join(inside) + "]",
        st.booleans(),
        st.lists(st.one_of(members, ranges), min_size=1, max_size=4),
    )
    pieces = st.one_of(st.sampled_from(PATTERN_CHARS + chars), sets)
    return st.lists(pieces, max_size=5).map("".join)


def names(chars: str) -> st.SearchStrategy[str]:
    return st.text(st.one_of(st.sampled_from(chars), st.sampled_from(NAME_CHARS)), max_size=8)


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
@given(ALPHABETS.flatmap(patterns), ALPHABETS.flatmap(names))
@example("[!]-a]", "b")
@example("[c-a-b]", "-")
@example("[a-]", "-")
@example("[]-]", "]")
@example("[!b-a]", "x")
@example("[b-a]", "b")
@example("a*b*a", "abba")
@example("[", "[")
@example("[!β-ω]", "δ")
@example("[β-δж-я]?", "δю")
@example("[a--!b]", "c")
@example("[a-cd-f]", "d")
@example("[!ж-юж-я]", "я")
@example("[一-中]*", "丁😀")
@example("[🀄-😁]", "😀")
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


def calls_made(pattern: str, names: list[str]) -> int:
    """The Python and built-in functions called while matching ``names`` against ``pattern``
    once it is compiled."""
    compiled = compile_component(pattern)
    calls = 0

    def count(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        for name in names:
            compiled.matches(name)
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("pattern", ["?" * 990, "*?" * 495, "[!a-z]" * 165])
def test_a_step_costs_the_same_whatever_the_character(pattern: str) -> None:
    """Names of 24,000 distinct CJK characters cost what names of one character repeated
    do, a few calls a character whatever the pattern's length: a step that looks at the
    pattern's tokens again for a character not met lately would let one caller's names
    starve the others."""
    varied = ["".join(chr(0x4E00 + 80 * n + k) for k in range(80)) for n in range(300)]
    repeated = ["一" * 80] * 300
    characters = 80 * 300
    assert calls_made(pattern, varied) <= calls_made(pattern, repeated) <= 8 * characters
