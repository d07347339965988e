"""How many tokens a text is, by the embedding model's tokenizer.

``ModelTokens`` counts a whole text of any length word by word, from counts it remembers,
and the words it has not seen in runs, many to a tokenizer text: a context block is held to
a budget of such tokens, and what the model reads of a text it embeds
(``Embedder.count_tokens``: special tokens included, nothing past the model's window) is
counted so at every write. Without a model, ``CharacterTokens`` bounds the count from above.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

WORD_CHARS = 120
"""Most characters of a word counted at once: a WordPiece token covers at least one
character, so a word is at most this many tokens, well inside a 256-token window."""
WORDS_KEPT = 200_000
"""Words whose counts are remembered: the vocabulary of a large memory, a few tens of MB."""
ALONE = 64
"""Most new words of one call counted one to a tokenizer text, and remembered. A text
costs the tokenizer some 8 µs (ONNX) to 20 µs (transformers) over its tokens, as much as
three to six short words: 64 of them cost a call a millisecond or so more, and a stream
of calls adds the words it uses to what is remembered."""
RUNS_PER_CALL = 64
"""Runs of new words given to the tokenizer at once: a call's memory stays some hundred
kilobytes, whatever the length of the texts."""
GROUP_CHARS = 1_000_000
"""Characters of texts split into words at once: a call's words, some hundred thousand
Python strings, stay some 10 MB whatever the number of texts."""
PROBE = 480
"""One-token words of the text that finds where the tokenizer stops counting (at its window,
or not below 482 tokens: the transformers tokenizer warns past 512)."""
_WORD = re.compile(r"\S+")
_BREAK = re.compile(r"[^\w\s]")


class TokenCounter(Protocol):
    """The port a context block is measured with."""

    def count(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text, whole, without the special tokens a model adds."""
        ...


class ModelTokens:
    """The model's tokenizer over whole texts. The model's tokenizers split words at white
    space before anything else, so the tokens of a text are the sum of those of its words,
    and of those of any runs of its words joined by spaces (a word longer than
    ``WORD_CHARS`` counted in parts, cut at a punctuation mark where it has one).

    A word already counted costs no tokenizer call: up to ``kept`` words' counts are
    remembered. Of the words a call has not seen, the first ``ALONE`` are counted one to a
    tokenizer text and remembered; the others, many to a text, in runs of the words of
    each text (up to as many characters as the tokenizer counts tokens whole), so that a
    text costs about what the tokenizer spends on it, whatever its words. A run counted up
    to where the tokenizer stops (its window) may have been cut short: it is counted again
    in halves, and a single word as it is (what counting it alone gives)."""

    def __init__(
        self, count_tokens: Callable[[Sequence[str]], list[int]], *, kept: int = WORDS_KEPT
    ) -> None:
        """``count_tokens``: the tokenizer's count of each text, special tokens included
        (up to the model's window, which no word of ``WORD_CHARS`` reaches)."""
        self._count_tokens = count_tokens
        self._specials: int | None = None
        self._whole: int | None = None
        self._kept = kept
        self._known: dict[str, int] = {}
        self._lock = threading.Lock()

    @property
    def remembered(self) -> int:
        """Words whose counts are remembered now; never more than ``kept``."""
        return len(self._known)

    def count(self, texts: Sequence[str]) -> list[int]:
        return [n for group in _groups(texts) for n in self._counted(list(map(words, group)))]

    def read(self, texts: Sequence[str], window: int) -> list[int]:
        """Tokens the model reads of each text: its special tokens added, none past
        ``window``. A text's words are counted only until they fill the window (each word
        but one of control characters is a token at least)."""
        specials = self._special_tokens()
        room = max(0, window - specials)
        counts = []
        for group in _groups(texts):
            split = [words(text) for text in group]
            counted = self._counted([ws[:room] for ws in split])
            longer = [n for n, ws in enumerate(split) if len(ws) > room and counted[n] < room]
            rest = self._counted([split[n][room:] for n in longer])
            for n, more in zip(longer, rest, strict=True):
                counted[n] += more
            counts += counted
        return [min(window, specials + n) for n in counts]

    def _counted(self, split: list[list[str]]) -> list[int]:
        """Tokens of each list of words, without special tokens."""
        # Counts are only ever added to this dict; when full, a new one replaces it, so
        # the one read here holds what it held while another call counts.
        known = self._known
        new = _first_new(split, known, ALONE + 1)
        if not new:
            return [sum(map(known.__getitem__, ws)) for ws in split]
        alone = self._alone(new[:ALONE])
        if len(new) <= ALONE:
            return [sum(alone[w] if w in alone else known[w] for w in ws) for ws in split]
        totals = [0] * len(split)
        unseen: list[tuple[int, list[str]]] = []
        for n, ws in enumerate(split):
            rest = []
            for w in ws:
                if w in known:
                    totals[n] += known[w]
                elif w in alone:
                    totals[n] += alone[w]
                else:
                    rest.append(w)
            if rest:
                unseen.append((n, rest))
        for n, tokens in self._in_runs(unseen):
            totals[n] += tokens
        return totals

    def _alone(self, new: list[str]) -> dict[str, int]:
        """Tokens of each of the ``new`` words (one tokenizer call, a word to a text),
        remembered for later as far as there is room."""
        specials = self._special_tokens()
        counts = self._count_tokens(new)
        counted = {w: max(0, n - specials) for w, n in zip(new, counts, strict=True)}
        with self._lock:
            known = self._known
            if len(known) + len(counted) > self._kept:
                known = {}
            known.update(itertools.islice(counted.items(), self._kept - len(known)))
            self._known = known
        return counted

    def _in_runs(self, unseen: list[tuple[int, list[str]]]) -> Iterator[tuple[int, int]]:
        """Tokens of runs of each ``(owner, words)``'s words, as ``(owner, tokens)``: a
        tokenizer call for every ``RUNS_PER_CALL`` runs, none remembered."""
        whole, specials = self._whole_below(), self._special_tokens()
        # A run of c characters is at most c tokens but where a character expands (Hangul
        # in NFD), so most runs are counted whole.
        runs = _runs(unseen, max(1, whole - 1 - specials))
        halves: list[tuple[int, list[str]]] = []
        while batch := halves[:RUNS_PER_CALL] or list(itertools.islice(runs, RUNS_PER_CALL)):
            del halves[: len(batch)]
            counts = self._count_tokens([" ".join(ws) for _, ws in batch])
            for (n, ws), tokens in zip(batch, counts, strict=True):
                if tokens >= whole and len(ws) > 1:  # perhaps cut at the window
                    half = len(ws) // 2
                    halves += [(n, ws[:half]), (n, ws[half:])]
                else:
                    yield n, max(0, tokens - specials)

    def _special_tokens(self) -> int:
        if self._specials is None:
            self._specials = self._count_tokens([""])[0]
        return self._specials

    def _whole_below(self) -> int:
        """Tokens below which the tokenizer's count of a text is the text's whole count."""
        if self._whole is None:
            self._whole = self._count_tokens([" ".join(["a"] * PROBE)])[0]
        return self._whole


class CharacterTokens:
    """One token per character that is not white space: never fewer than a WordPiece or
    BPE tokenizer counts, for when no model is loaded."""

    def count(self, texts: Sequence[str]) -> list[int]:
        return [sum(len(w) for w in _WORD.findall(text)) for text in texts]


def words(text: str, most: int = WORD_CHARS) -> list[str]:
    """The white-space separated words of ``text``, a word longer than ``most`` characters
    cut after a punctuation mark near the limit, else at the limit."""
    found = _WORD.findall(text)
    if max(map(len, found), default=0) <= most:
        return found
    return [part for word in found for part in _cut(word, most)]


def _groups(texts: Sequence[str]) -> Iterator[Sequence[str]]:
    """``texts`` in groups of at most ``GROUP_CHARS`` characters (or a longer text alone)."""
    start, size = 0, 0
    for end, text in enumerate(texts):
        if end > start and size + len(text) > GROUP_CHARS:
            yield texts[start:end]
            start, size = end, 0
        size += len(text)
    if start < len(texts):
        yield texts[start:]


def _first_new(split: list[list[str]], known: dict[str, int], most: int) -> list[str]:
    """The first ``most`` words of ``split`` not in ``known``, each once."""
    new: dict[str, None] = {}
    for ws in split:
        for w in ws:
            if w not in known and w not in new:
                new[w] = None
                if len(new) == most:
                    return list(new)
    return list(new)


def _runs(unseen: list[tuple[int, list[str]]], chars: int) -> Iterator[tuple[int, list[str]]]:
    """Each ``(owner, words)``'s words in runs of at most ``chars`` characters with the
    spaces between them (a longer word a run of its own)."""
    for n, ws in unseen:
        run: list[str] = []
        size = -1
        for w in ws:
            if run and size + 1 + len(w) > chars:
                yield n, run
                run, size = [], -1
            run.append(w)
            size += 1 + len(w)
        if run:
            yield n, run


def _cut(word: str, most: int) -> list[str]:
    parts: list[str] = []
    while len(word) > most:
        marks = [m.end() for m in _BREAK.finditer(word, 0, most)]
        at = marks[-1] if marks and marks[-1] > most // 2 else most
        parts.append(word[:at])
        word = word[at:]
    return [*parts, word] if word else parts
