"""An entry cut to a token allowance: whole sentences around its best passage, the one
sharing the most words with the question (as snippets pick a chunk), never just its start."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from service.domain.search.snippets import SCAN_CHARS, best_chunk
from service.domain.tokens import TokenCounter

ELLIPSIS = "…"
SCAN_WORDS = 20_000
"""Words of a sentence read for the first question term, from its start: a sentence of a
million characters is cut around a term among its first words, or at its start."""
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n\s*")
_SPACES = re.compile(r"\s+")
_NON_SPACE = re.compile(r"\S")
_NON_WORD = re.compile(r"\W+")


@dataclass(frozen=True)
class Excerpt:
    text: str
    tokens: int
    cut: bool
    """Part of the entry's text is left out (marked ``…`` where it is)."""


def one_line(text: str) -> str:
    """``text`` with every run of white space made one space, trimmed."""
    return _SPACES.sub(" ", text).strip()


def more_words(text: str, most: int) -> bool:
    """Whether ``text`` has more than ``most`` words, reading no further than the word after
    them."""
    return len(text.split(maxsplit=most)) > most


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (split after ``.``, ``!``, ``?`` or ``…``, and at line
    breaks), each on one line."""
    return [s for s in (one_line(part) for part in _SENTENCE_END.split(text)) if s]


def excerpt(
    text: str,
    terms: set[str],
    allowance: int,
    counter: TokenCounter,
    *,
    whole: tuple[str, int] | None = None,
) -> Excerpt:
    """``text`` on one line if it fits in ``allowance`` tokens, else the sentences around
    the best one that fit, ``…`` where text is left out; the best sentence alone too long,
    its words around the first of ``terms``. Empty when not even that fits. ``whole``:
    ``text`` on one line and its tokens, when already counted (a count above any allowance
    for a text known to be too long, which is then never counted whole)."""
    if whole is None:
        line = one_line(text)
        whole = line, counter.count([line])[0]
    line, total = whole
    if total <= allowance:
        return Excerpt(line, total, False)
    # Of a longer text, sentences among its first ``SCAN_CHARS`` characters (where a
    # search's snippet is chosen too); more after them is marked as left out.
    parts = sentences(text[:SCAN_CHARS])
    beyond = _NON_SPACE.search(text, SCAN_CHARS) is not None
    if not parts:
        return Excerpt("", 0, bool(text.strip()))
    mark = counter.count([ELLIPSIS])[0] if allowance > 0 else 0
    best = best_chunk(parts, terms)
    # Sentences are counted as the excerpt grows: a long entry cut to a few is never
    # counted whole, nor a sentence of more words than the allowance has tokens (a word is
    # one at the least): it cannot fit.
    counted: dict[int, int] = {}

    def cost(n: int) -> int:
        if n not in counted:
            if parts[n].count(" ") >= allowance:
                counted[n] = allowance + 1
            else:
                (counted[n],) = counter.count([parts[n]])
        return counted[n]

    def marks(start: int, end: int) -> int:
        return mark * ((start > 0) + (end < len(parts) or beyond))

    if cost(best) + marks(best, best + 1) > allowance:
        return _words(parts[best], terms, allowance, counter, mark, beyond)
    start, end, used = best, best + 1, cost(best)
    # Grow by whole sentences, the one after first (it tends to explain), then the one before.
    grown = True
    while grown:
        grown = False
        if end < len(parts) and used + cost(end) + marks(start, end + 1) <= allowance:
            used, end, grown = used + cost(end), end + 1, True
        if start > 0 and used + cost(start - 1) + marks(start - 1, end) <= allowance:
            used, start, grown = used + cost(start - 1), start - 1, True
    return _joined(parts[start:end], start > 0, end < len(parts) or beyond, counter)


def _words(
    sentence: str,
    terms: set[str],
    allowance: int,
    counter: TokenCounter,
    mark: int,
    beyond: bool = False,
) -> Excerpt:
    """Words of one sentence around the first of ``terms`` (its start when none is
    there), within ``allowance`` with the marks; ``beyond``: the text goes on after it."""
    words = sentence.split(" ")
    read = itertools.islice(words, SCAN_WORDS)
    first = next((n for n, w in enumerate(read) if _bare(w) in terms), 0)
    start, end, used = first, first, 0
    budget = allowance - 2 * mark
    # Words are counted as the excerpt grows, those near it at once: a long sentence cut to
    # a few words is never counted whole.
    costs: dict[int, int] = {}

    def cost(n: int) -> int:
        if n not in costs:
            reach = max(budget, 0)
            near = range(max(0, n - reach), min(len(words), n + reach + 1))
            costs.update(zip(near, counter.count([words[m] for m in near]), strict=True))
        return costs[n]

    # From the term on, then what led to it, while the words fit.
    while end < len(words) and used + cost(end) <= budget:
        used += cost(end)
        end += 1
    while start > 0 and used + cost(start - 1) <= budget:
        start -= 1
        used += cost(start)
    if end == start:
        return Excerpt("", 0, True)
    after = end < len(words) or beyond
    return _joined([" ".join(words[start:end])], start > 0, after, counter)


def _joined(kept: list[str], before: bool, after: bool, counter: TokenCounter) -> Excerpt:
    text = " ".join([*([ELLIPSIS] if before else []), *kept, *([ELLIPSIS] if after else [])])
    return Excerpt(text, counter.count([text])[0], before or after)


def _bare(word: str) -> str:
    return _NON_WORD.sub("", word).lower()
