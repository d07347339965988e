"""Heading-aware chunking of markdown files, with the line range of every chunk."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Block:
    """A run of lines that is never split: a paragraph, a list, a code fence, a heading."""

    text: str
    first: int
    """1-based line number of the first line."""
    last: int
    heading: bool = False

    @property
    def words(self) -> int:
        return len(self.text.split())


@dataclass(frozen=True)
class MarkdownChunk:
    text: str
    first: int
    last: int
    heading: str
    """The nearest heading above the chunk ('' before the first one)."""


def title_of(text: str, fallback: str) -> str:
    """The first heading of a document, else ``fallback`` (its file name)."""
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (match := _HEADING.match(line)):
            return match.group(2)
    return fallback


def blocks(text: str) -> list[Block]:
    """Split at blank lines and before headings, never inside a code fence."""
    found: list[Block] = []
    current: list[str] = []
    start = 1
    in_fence = False

    def flush(end: int) -> None:
        if current and any(line.strip() for line in current):
            found.append(Block("\n".join(current).strip("\n"), start, end))
        current.clear()

    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            if not in_fence:
                flush(number - 1)
                start = number
            in_fence = not in_fence
            current.append(line)
            if not in_fence:
                flush(number)
                start = number + 1
            continue
        if in_fence:
            current.append(line)
            continue
        if _HEADING.match(line):
            flush(number - 1)
            found.append(Block(line.strip(), number, number, heading=True))
            start = number + 1
        elif not line.strip():
            flush(number - 1)
            start = number + 1
        else:
            if not current:
                start = number
            current.append(line)
    flush(len(text.splitlines()))
    return found


def chunk_markdown(text: str, words: int, overlap: int) -> list[MarkdownChunk]:
    """Pack blocks into chunks of about ``words`` words.

    A heading always starts a new chunk; a chunk carries its section's heading. The last
    block of a chunk (when it has at most ``overlap`` words) is repeated at the start of
    the next one in the same section, so an idea cut at a boundary is found from both
    sides. A single block longer than ``words`` (a long code fence) stays whole.
    """
    chunks: list[MarkdownChunk] = []
    heading = ""
    pending: list[Block] = []
    carried_heading = False

    def emit() -> None:
        if pending and not all(b.heading for b in pending):
            body = "\n\n".join(b.text for b in pending)
            # A heading repeated for context does not widen the chunk's line range.
            own = pending[1:] if carried_heading else pending
            chunks.append(MarkdownChunk(body, own[0].first, own[-1].last, heading))

    for block in blocks(text):
        if block.heading:
            emit()
            heading = _HEADING.match(block.text).group(2)  # type: ignore[union-attr]
            pending = [block]
            carried_heading = False
            continue
        size = sum(b.words for b in pending)
        if pending and size + block.words > words and not all(b.heading for b in pending):
            emit()
            tail = pending[-1]
            carried = [tail] if tail.words <= overlap and not tail.heading else []
            heading_block = [b for b in pending[:1] if b.heading]
            carried_heading = bool(heading_block)
            pending = heading_block + carried
        pending.append(block)
    emit()
    return chunks
