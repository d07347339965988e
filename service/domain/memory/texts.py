"""What each index reads of an entry: the text the model embeds and the text BM25 indexes."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from service.domain.entries import DIGEST, EARLIEST_TIME, LATEST_TIME, Entry, StoredEntry

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


def found_by_passage(entry: Entry) -> bool:
    """Whether BM25 indexes the entry chunk by chunk, a hit naming the chunk that matched: a
    digest, whose quoted lines are each found as the line they are (in one document, the
    other lines' length would bury them)."""
    return entry.kind == DIGEST


def keyword_texts(stored: StoredEntry) -> list[str]:
    """What BM25 indexes of an entry, one document each, in chunk order: its
    ``keyword_text``; for an entry found by passage, each chunk's."""
    entry = stored.entry
    if not found_by_passage(entry) or len(stored.chunks) < 2:
        return [keyword_text(entry)]
    return [keyword_text(replace(entry, text=chunk.text)) for chunk in stored.chunks]
