"""The two blocks a context run compares, and when a question's evidence is inside one.

The naive block is what an agent builds from a search: the results' whole texts, best
first, one line ``- text`` each, until the next would pass the budget. The context block
is ``POST /v1/context``'s. A relevant document is inside a block when the block holds its
whole text (on one line, as both blocks show texts); for the context block also when one
of the response's ``entries`` has the document's id and a shown text that, without the
``…`` marks at its ends, is non-empty and part of the document's text (an entry cut to
the sentences around its best passage).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from service.domain.answers.excerpts import ELLIPSIS, one_line
from service.domain.tokens import TokenCounter

BULLET = "- "


@dataclass(frozen=True)
class Hit:
    """A search result as the naive block reads it."""

    id: str
    text: str


@dataclass(frozen=True)
class NaiveBlock:
    text: str
    tokens: int
    ids: list[str]
    """The results it holds, best first."""


@dataclass(frozen=True)
class Shown:
    """An entry as a context response lists it: its id and its text as the block shows it."""

    id: str
    text: str


@dataclass(frozen=True)
class Inside:
    """Which relevant documents a block holds, by either rule."""

    whole: frozenset[str]
    """Documents whose whole text the block holds."""
    cut: frozenset[str]
    """Documents held only as a cut entry of theirs."""

    @property
    def held(self) -> frozenset[str]:
        return self.whole | self.cut


def naive_block(hits: Sequence[Hit], counter: TokenCounter, max_tokens: int) -> NaiveBlock:
    """The results' texts as lines ``- text``, best first, each whole and on one line, until
    the next line would take the block past ``max_tokens`` as ``counter`` counts it. A
    result already shown, or without text, is passed over."""
    lines: list[str] = []
    ids: list[str] = []
    tokens = 0
    for hit in hits:
        text = one_line(hit.text)
        if not text or hit.id in ids:
            continue
        candidate = "\n".join([*lines, BULLET + text])
        (count,) = counter.count([candidate])
        if count > max_tokens:
            break
        lines.append(BULLET + text)
        ids.append(hit.id)
        tokens = count
    return NaiveBlock("\n".join(lines), tokens, ids)


def holds_whole(block: str, text: str) -> bool:
    """``block`` holds ``text`` whole (white space as one line has it)."""
    whole = one_line(text)
    return bool(whole) and whole in block


def holds_cut(doc_id: str, text: str, entries: Sequence[Shown]) -> bool:
    """One of ``entries`` is the document ``doc_id`` and shows part of its ``text``: the
    shown text, without the ``…`` marks at its ends, is non-empty and within ``text``."""
    whole = one_line(text)
    for entry in entries:
        if entry.id != doc_id:
            continue
        shown = entry.text.strip().removeprefix(ELLIPSIS).removesuffix(ELLIPSIS).strip()
        if shown and shown in whole:
            return True
    return False


def inside(block: str, relevant: Mapping[str, str], entries: Sequence[Shown] = ()) -> Inside:
    """The documents of ``relevant`` (id → text) that ``block`` holds whole, and those that
    only one of ``entries`` (the context response's) holds cut."""
    whole = {doc for doc, text in relevant.items() if holds_whole(block, text)}
    cut = {
        doc for doc, text in relevant.items() if doc not in whole and holds_cut(doc, text, entries)
    }
    return Inside(frozenset(whole), frozenset(cut))
