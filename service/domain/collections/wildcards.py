"""One name matched against one glob component, without backtracking.

A component reads as ``fnmatch.fnmatchcase`` reads it: ``*`` matches any characters, ``?``
one, ``[abc]`` or ``[a-z]`` one of a set and ``[!abc]`` one not of it; ``]`` first in a set
(after any ``!``) is a member of it, as is ``-`` first or last; a range whose ends are
reversed is left out of its set; a ``[`` that no ``]`` closes is itself. Matching is
case-sensitive and a name is matched whole.

A component is compiled in one pass over it, and a name is matched as the set of pattern
positions reached so far, held in the bits of one integer: a step per character of the
name, each a few operations on integers of the pattern's length in bits. The positions
whose token takes a character are found without looking at the tokens again: those of
``?``, with those of the character as a literal or a set's single member (a dictionary
lookup) and those of the sets with a range over it (a binary search over the code points
where a range starts or ends), the ``[!...]`` sets among them flipped. A step costs the same
for every character, whatever the alphabet, and neither compiling nor matching backtracks.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache


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


@dataclass(frozen=True)
class Wildcard:
    """A compiled component of ``length`` positions. Bit ``i`` of a state means the name so
    far matched the pattern up to position ``i``, and bit ``i`` of ``stars`` that a ``*``
    stands before position ``i`` (runs of ``*`` being one). The other masks hold the
    positions of ``?`` (``anything``), of ``[!...]`` sets (``negated``), of a character as a
    literal or a set's single member (``by_char``), and ``spans[k]`` those of the sets with a
    range over the code points from ``bounds[k - 1]`` up to ``bounds[k]``."""

    length: int
    stars: int
    anything: int
    negated: int
    by_char: dict[str, int]
    bounds: list[int]
    spans: list[int]

    def matches(self, name: str) -> bool:
        stars, anything, negated = self.stars, self.anything, self.negated
        by_char, bounds, spans = self.by_char, self.bounds, self.spans
        state = 1
        for char in name:
            member = by_char.get(char, 0) | spans[bisect_right(bounds, ord(char))]
            step = anything | (member ^ negated)
            # Each position reached moves past its token if that takes the character, and
            # stays if a ``*`` stands there to take it.
            state = ((state & step) << 1) | (state & stars)
            if not state:
                return False
        return bool(state >> self.length & 1)

    @classmethod
    def of(cls, tokens: list[Token], stars: int) -> Wildcard:
        """The component whose position ``i`` consumes ``tokens[i]``."""
        anything: list[int] = []
        negated: list[int] = []
        by_char: defaultdict[str, list[int]] = defaultdict(list)
        edges: defaultdict[int, list[int]] = defaultdict(list)
        for at, token in enumerate(tokens):
            if token is None:
                anything.append(at)
            elif isinstance(token, str):
                by_char[token].append(at)
            else:
                if token.negated:
                    negated.append(at)
                for char in token.singles:
                    by_char[char].append(at)
                for lo, hi in _merged(token.ranges):
                    edges[lo].append(at)
                    edges[hi + 1].append(at)
        bounds = sorted(edges)
        spans = [0]
        for bound in bounds:  # a set's ranges being apart, each bound flips its position
            spans.append(spans[-1] ^ _bits(edges[bound]))
        return cls(
            len(tokens),
            stars,
            _bits(anything),
            _bits(negated),
            {char: _bits(positions) for char, positions in by_char.items()},
            bounds,
            spans,
        )


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
    return Wildcard.of(tokens, _bits(star_at))


def char_set(inside: str) -> CharSet:
    """The set of ``[inside]``, read as ``fnmatch`` reads it: ``-`` joins the characters
    either side into a range, except first (after any ``!``) and last, and after a range
    the next character starts anew; a reversed range takes its ends with it, and a set left
    starting with ``!`` is negated (``[a--!b]`` reads as ``[!b]``)."""
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
    negated = items[:1] == ["!"]
    if negated:
        items = items[1:]
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


def _merged(ranges: Iterable[tuple[str, str]]) -> list[tuple[int, int]]:
    """The code points of ``ranges`` as ranges apart from one another, in order."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted((ord(lo), ord(hi)) for lo, hi in ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def _bits(positions: Iterable[int]) -> int:
    """The integer with the bits at ``positions`` set, built in one pass."""
    found = bytearray()
    for at in positions:
        byte = at >> 3
        if byte >= len(found):
            found.extend(bytes(byte + 1 - len(found)))
        found[byte] |= 1 << (at & 7)
    return int.from_bytes(found, "little")
