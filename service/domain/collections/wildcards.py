"""One name matched against one glob component, without backtracking.

A component reads as ``fnmatch.fnmatchcase`` reads it: ``*`` matches any characters, ``?``
one, ``[abc]`` or ``[a-z]`` one of a set and ``[!abc]`` one not of it; ``]`` first in a set
(after any ``!``) is a member of it, as is ``-`` first or last; a range whose ends are
reversed is left out of its set; a ``[`` that no ``]`` closes is itself. Matching is
case-sensitive and a name is matched whole.

A component is compiled in one pass over it, and a name is matched as the set of pattern
positions reached so far, held in the bits of one integer: a step per character of the
name, each a few operations on integers of the pattern's length in bits. Neither compiling
nor matching backtracks or scans the pattern again, whatever it holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

STEPS_KEPT = 64
"""Step masks a compiled component keeps, by character, for the names matched next."""


@dataclass(frozen=True)
class CharSet:
    """The characters one ``[...]`` matches."""

    singles: frozenset[str]
    ranges: tuple[tuple[str, str], ...]
    negated: bool

    def has(self, char: str) -> bool:
        inside = char in self.singles or any(lo <= char <= hi for lo, hi in self.ranges)
        return inside != self.negated


Token = str | CharSet | None
"""A literal character, a set, or None for ``?`` (any one character)."""


@dataclass
class Wildcard:
    """A compiled component: ``tokens[i]`` is what position ``i`` consumes, and ``stars``
    has bit ``i`` set where a ``*`` stands before it (runs of ``*`` being one). Bit ``i`` of
    a state means the name so far matched the pattern up to position ``i``."""

    tokens: list[Token]
    stars: int
    steps: dict[str, int] = field(default_factory=dict)

    def matches(self, name: str) -> bool:
        stars = self.stars
        state = 1
        for char in name:
            # Each position reached moves past its token if that takes the character, and
            # stays if a ``*`` stands there to take it.
            state = ((state & self._step(char)) << 1) | (state & stars)
            if not state:
                return False
        return bool(state >> len(self.tokens) & 1)

    def _step(self, char: str) -> int:
        """The positions whose token consumes ``char``."""
        found = self.steps.get(char)
        if found is None:
            found = _bits(
                at
                for at, token in enumerate(self.tokens)
                if token is None
                or (token.has(char) if isinstance(token, CharSet) else token == char)
            )
            if len(self.steps) >= STEPS_KEPT:
                self.steps.clear()
            self.steps[char] = found
        return found


@lru_cache(maxsize=1024)
def compile_component(pattern: str) -> Wildcard:
    """``pattern`` (a component: it holds no ``/``) compiled, in one pass over it."""
    tokens: list[Token] = []
    star_at: list[int] = []
    last_close = pattern.rfind("]")
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        i += 1
        if char == "*":
            if not star_at or star_at[-1] != len(tokens):
                star_at.append(len(tokens))
        elif char == "?":
            tokens.append(None)
        elif char == "[":
            j = i + 1 if i < n and pattern[i] == "!" else i
            if j < n and pattern[j] == "]":
                j += 1
            if j > last_close:  # no ``]`` closes it (found without scanning the rest)
                tokens.append("[")
                continue
            close = pattern.index("]", j)
            tokens.append(char_set(pattern[i:close]))
            i = close + 1
        else:
            tokens.append(char)
    return Wildcard(tokens, _bits(star_at))


def char_set(inside: str) -> CharSet:
    """The set of ``[inside]``, read as ``fnmatch`` reads it: ``-`` joins the characters
    either side into a range, except first (after any ``!``) and last, and after a range
    the next character starts anew; a reversed range takes its ends with it."""
    negated = inside.startswith("!")
    if "-" not in inside:
        return CharSet(frozenset(inside[1:] if negated else inside), (), negated)
    chunks: list[str] = []
    start = 0
    at = 2 if negated else 1
    while (at := inside.find("-", at)) >= 0:
        chunks.append(inside[start:at])
        start = at + 1
        at += 3
    if rest := inside[start:]:
        chunks.append(rest)
    else:
        chunks[-1] += "-"
    for k in range(len(chunks) - 1, 0, -1):
        if chunks[k - 1][-1] > chunks[k][0]:
            chunks[k - 1] = chunks[k - 1][:-1] + chunks[k][1:]
            del chunks[k]
    # What is left reads as a regular expression's set would: chunks of plain characters
    # joined by dashes, each dash the range between the characters either side of it.
    items: list[str | None] = []  # a character, or None for a joining dash
    for k, chunk in enumerate(chunks):
        if k:
            items.append(None)
        items.extend(chunk)
    if items[:1] == ["!"]:
        items = items[1:]
    else:
        negated = False
    singles: set[str] = set()
    ranges: list[tuple[str, str]] = []
    k = 0
    while k < len(items):
        lo = items[k] or "-"
        k += 1
        if k + 1 < len(items) and items[k] is None:
            hi = items[k + 1] or "-"
            k += 2
            if lo <= hi:
                ranges.append((lo, hi))
        elif k + 1 == len(items) and items[k] is None:  # a dash last is itself
            singles.update((lo, "-"))
            k += 1
        else:
            singles.add(lo)
    return CharSet(frozenset(singles), tuple(ranges), negated)


def _bits(positions: Iterable[int]) -> int:
    """The integer with the bits at ``positions`` set, built in one pass."""
    found = bytearray()
    for at in positions:
        byte = at >> 3
        if byte >= len(found):
            found.extend(bytes(byte + 1 - len(found)))
        found[byte] |= 1 << (at & 7)
    return int.from_bytes(found, "little")
