"""What each index reads of an entry: the text the model embeds and the text BM25 indexes."""

from __future__ import annotations

from service.domain.models import Entry


def embedding_input(entry: Entry, chunk: str) -> str:
    """What the model reads for a chunk: who said it matters to what it means."""
    return f"{entry.speaker}: {chunk}" if entry.speaker else chunk


def keyword_text(entry: Entry) -> str:
    """What BM25 indexes: the text with its speaker ("what did Alice say about ...") and,
    for a pattern, every variant, so any of them finds it."""
    text = f"{entry.speaker}: {entry.text}" if entry.speaker else entry.text
    return "\n".join([text, *entry.variants])
