"""What each index reads of an entry: the text the model embeds and the text BM25 indexes."""

from __future__ import annotations

from datetime import UTC, datetime

from service.domain.models import EARLIEST_TIME, LATEST_TIME, Entry

CONTEXT_CHARS = 1000
"""Most of the previous turn kept as an entry's context."""


def embedding_input(entry: Entry, chunk: str) -> str:
    """What the model reads for a chunk: who said it matters to what it means. The thread's
    previous turn stays out: in a vector it blurs the turn (measured on locomo-dev)."""
    return f"{entry.speaker}: {chunk}" if entry.speaker else chunk


def turn_text(entry: Entry) -> str:
    """An entry as the context of the next turn in its thread: who said what."""
    text = f"{entry.speaker}: {entry.text}" if entry.speaker else entry.text
    return text[:CONTEXT_CHARS]


def keyword_text(entry: Entry) -> str:
    """What BM25 indexes: the previous turn of the thread (a reply is about what it answers),
    the text with its speaker ("what did Alice say about ..."), a pattern's variants (any
    finds it), and the day it happened ("what did we decide in March?"). Chunks of files
    carry no day: theirs would be the day of the scan."""
    parts = [entry.context] if entry.context else []
    parts.append(f"{entry.speaker}: {entry.text}" if entry.speaker else entry.text)
    parts.extend(entry.variants)
    if "file" not in entry.metadata and EARLIEST_TIME <= entry.timestamp <= LATEST_TIME:
        day = datetime.fromtimestamp(entry.timestamp, UTC)
        parts.append(f"(on {day.day} {day:%B %Y})")
    return "\n".join(parts)
