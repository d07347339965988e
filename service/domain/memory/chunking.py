"""Split long texts into overlapping word windows that fit the embedding model."""

from __future__ import annotations


def chunk_text(text: str, words: int, overlap: int) -> list[str]:
    """Windows of ``words`` words, each sharing ``overlap`` words with the one before.

    all-MiniLM-L6-v2 reads 256 word pieces; 150 English words stay inside that for
    ordinary prose, so no part of a long entry is silently truncated away.
    """
    tokens = text.split()
    if len(tokens) <= words:
        return [text.strip()]
    step = words - overlap
    chunks = []
    for start in range(0, len(tokens), step):
        chunks.append(" ".join(tokens[start : start + words]))
        if start + words >= len(tokens):
            break
    return chunks


def chunk_count(text: str, words: int, overlap: int) -> int:
    """How many windows ``chunk_text`` makes of ``text``, without making them."""
    tokens = len(text.split())
    if tokens <= words:
        return 1
    return -(-(tokens - words) // (words - overlap)) + 1
