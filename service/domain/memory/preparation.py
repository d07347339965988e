"""An entry made ready to store: chunked, its chunks embedded (tiers A and C), its tokens
counted; ``Preparer`` does it with the model and chunking of the memory."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace

from service.domain.aging.digests import is_digest, passages
from service.domain.entries import Chunk, Entry, StoredEntry
from service.domain.errors import EngineUnavailable
from service.domain.memory.bounds import require_bounds
from service.domain.memory.chunking import chunk_text
from service.domain.memory.texts import embedding_input, turn_text
from service.domain.ports import Embedder
from service.settings import ChunkingSettings

log = logging.getLogger(__name__)


def prepare(
    entries: Sequence[Entry], embedder: Embedder | None, chunking: ChunkingSettings
) -> list[StoredEntry]:
    """Chunk every entry and embed the chunks of embedded tiers, in one model call. A
    digest's chunks are its passages (its head, then each quoted line), each of them found
    by keywords on its own.

    Without a model, tier A and C entries are kept without vectors and embedded by
    ``backfill`` once a model is loaded.
    """
    size = chunking
    pieces = [
        passages(e.text) or [e.text]
        if is_digest(e)
        else chunk_text(e.text, size.words, size.overlap)
        for e in entries
    ]
    inputs = [
        [embedding_input(e, piece) for piece in chunks]
        for e, chunks in zip(entries, pieces, strict=True)
    ]
    tokens = _count_tokens(embedder, inputs)
    wanted = [
        text for e, texts in zip(entries, inputs, strict=True) if e.embedded for text in texts
    ]
    vectors = iter(embedder.embed(wanted)) if wanted and embedder else None
    stored = []
    for entry, chunks, count in zip(entries, pieces, tokens, strict=True):
        built = tuple(
            Chunk(entry.key, n, text, next(vectors) if entry.embedded and vectors else None)
            for n, text in enumerate(chunks)
        )
        stored.append(StoredEntry(entry, built, count))
    return stored


def _count_tokens(embedder: Embedder | None, inputs: list[list[str]]) -> list[int]:
    flat = [text for texts in inputs for text in texts]
    if embedder is not None:
        counts = iter(embedder.count_tokens(flat))
    else:  # about four word pieces for every three English words
        counts = iter(len(text.split()) * 4 // 3 for text in flat)
    return [sum(next(counts) for _ in texts) for texts in inputs]


def in_threads(
    stored: Sequence[StoredEntry], last_in_thread: Callable[[str, str], Entry | None]
) -> list[StoredEntry]:
    """Give each entry of a thread the turn before it, in arrival order, as context.
    Called under the write lock, so concurrent writers see one order;
    ``last_in_thread(namespace, thread)`` gives the turn written last before these."""
    last: dict[tuple[str, str], Entry | None] = {}
    placed = []
    for s in stored:
        e = s.entry
        if e.thread is None:
            placed.append(s)
            continue
        where = (e.namespace, e.thread)
        if where not in last:
            last[where] = last_in_thread(*where)
        before = last[where]
        context = None if before is None or before.key == e.key else turn_text(before)
        placed.append(StoredEntry(replace(e, context=context), s.chunks, s.tokens))
        last[where] = e
    return placed


class Preparer:
    """Makes entries ready to store with one model (or none) and one chunking: every part
    that chunks, embeds or bounds-checks entries does it through here."""

    def __init__(self, embedder: Embedder | None, chunking: ChunkingSettings) -> None:
        self.embedder = embedder
        """None: no model is loaded (tier A and C entries are kept without vectors)."""
        self.chunking = chunking

    @property
    def has_model(self) -> bool:
        return self.embedder is not None

    @property
    def similar_threshold(self) -> float:
        """The least similarity at which a write names an entry as similar to a new one."""
        return self.chunking.similar_threshold

    def check(self, entries: Sequence[Entry]) -> None:
        """InvalidInput naming ``entries[n].<field>`` for every breach of the bounds."""
        require_bounds(list(entries), self.chunking, "entries")

    def prepare(self, entries: Sequence[Entry]) -> list[StoredEntry]:
        """Chunk every entry and embed the chunks of embedded tiers, in one model call."""
        return prepare(entries, self.embedder, self.chunking)

    def prepare_kept(self, entries: Sequence[Entry]) -> list[StoredEntry]:
        """``prepare``, or, when the model fails, the entries without vectors: the write is
        kept and acknowledged, and ``backfill`` embeds them once the model answers."""
        try:
            return self.prepare(entries)
        except EngineUnavailable as exc:
            if exc.engine != "model":
                raise
            log.warning("%s: %d entries kept without vectors", exc, len(entries))
            return prepare(entries, None, self.chunking)
