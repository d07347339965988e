"""The lines of an export file (``schemas.wire.portable``) made from domain values and
back, each checked as a write is."""

from __future__ import annotations

import base64
import math
from array import array

from schemas import wire
from service.domain.entries import (
    EMBEDDED_TIERS,
    Chunk,
    Entry,
    ExportedEntry,
    HistoryEvent,
    RemovedEntry,
    StoredEntry,
    Supersession,
    entry_key,
    key_id,
)
from service.domain.memory.bounds import breaches
from service.domain.model import Collection, Feedback, IndexedFile, Interaction, InteractionResult
from service.domain.model.references import Reference
from service.lib.fields import fields_of
from service.settings import ChunkingSettings

ENTRY_FIELDS = (
    *("id", "tier", "text", "timestamp", "speaker", "role", "chain_type", "expires_at"),
    *("kind", "type", "confidence", "thread", "context"),
)
"""What an entry's line holds as the entry does."""


def entry_line(item: ExportedEntry, *, vectors: bool) -> wire.EntryLine:
    """An entry's line; with ``vectors``, its chunks and their vectors when it has them."""
    s, e = item.stored, item.stored.entry
    chunks = None
    if vectors and s.has_vectors:
        chunks = [wire.ChunkLine(text=c.text, vector=encode_vector(c.vector)) for c in s.chunks]
    return wire.EntryLine(
        **fields_of(e, *ENTRY_FIELDS),
        state="archived" if e.archived else "live",
        tags=list(e.tags),
        metadata=dict(e.metadata),
        variants=list(e.variants),
        tokens=s.tokens,
        history=[
            wire.HistoryLine(at=h.at, action=h.action, actor=h.actor, detail=h.detail)
            for h in item.history
        ],
        supersedes=[
            wire.SupersededLine(id=key_id(r.older), at=r.at, actor=r.actor) for r in item.supersedes
        ],
        chunks=chunks,
    )


def encode_vector(vector: tuple[float, ...] | None) -> str:
    return base64.b64encode(array("f", vector or ()).tobytes()).decode()


def decode_vector(text: str) -> tuple[float, ...]:
    """Raises ValueError for what is not base64 of float32 values, or not finite."""
    raw = base64.b64decode(text, validate=True)
    if not raw or len(raw) % 4:
        raise ValueError("is not a whole number of float32 values")
    values = array("f")
    values.frombytes(raw)
    if not all(math.isfinite(x) for x in values):
        raise ValueError("holds values that are not finite")
    return tuple(values)


def entry_problems(
    line: wire.EntryLine, chunking: ChunkingSettings, dimension: int | None, namespace: str
) -> list[str]:
    """What makes an entry line unfit to store in ``namespace``: the bounds of every stored
    entry (``bounds.breaches``), and the rules of its vectors."""
    found = [f"{e.field}: {e.message}" for e in breaches(line_entry(line, namespace), chunking)]
    if line.chunks is not None:
        if line.tier not in EMBEDDED_TIERS:
            found.append(f"chunks: tier {line.tier} entries have no vectors")
        if not line.chunks:
            found.append("chunks: empty (leave it out for none)")
        for n, chunk in enumerate(line.chunks):
            try:
                size = len(decode_vector(chunk.vector))
            except ValueError as exc:
                found.append(f"chunks[{n}].vector: {exc}")
                continue
            if dimension is not None and size != dimension:
                found.append(f"chunks[{n}].vector: {size} values, the header says {dimension}")
    return found


def line_entry(line: wire.EntryLine, namespace: str) -> Entry:
    """The entry a line holds, in ``namespace``."""
    return Entry(
        **fields_of(line, *ENTRY_FIELDS),
        namespace=namespace,
        tags=tuple(line.tags),
        metadata=dict(line.metadata),
        archived=line.state == "archived",
        variants=tuple(line.variants),
    )


def archived_entry(
    line: wire.EntryLine, namespace: str, *, reuse_vectors: bool, actor: str
) -> ExportedEntry:
    """The entry of a line, in ``namespace``; its chunks only when ``reuse_vectors`` (else
    it is chunked and embedded again). A line without history is given one: created at its
    time by ``actor``."""
    entry = line_entry(line, namespace)
    chunks: tuple[Chunk, ...] = ()
    if reuse_vectors and line.chunks:
        chunks = tuple(
            Chunk(entry.key, n, c.text, decode_vector(c.vector)) for n, c in enumerate(line.chunks)
        )
    history = tuple(HistoryEvent(h.at, h.action, h.actor, h.detail) for h in line.history)
    if not history:
        history = (HistoryEvent(line.timestamp, "created", actor),)
    supersedes = tuple(
        Supersession(entry_key(namespace, r.id), entry.key, r.at, r.actor)
        for r in line.supersedes
        if r.id != line.id
    )
    stored = StoredEntry(entry, chunks, line.tokens if chunks else 0)
    return ExportedEntry(stored, history, supersedes)


COLLECTION_FIELDS = ("id", "name", "path", "mask", "tier", "created_at", "scanned_at")
"""What a collection's line holds as the collection does."""
INTERACTION_FIELDS = (
    *("id", "at", "question", "strong_match", "best_relevance", "took_ms"),
    *("asker", "answer_confidence"),
)
"""What an interaction's line holds as the interaction does, beside its results."""


def collection_line(c: Collection) -> wire.CollectionLine:
    return wire.CollectionLine(**fields_of(c, *COLLECTION_FIELDS))


def collection(line: wire.CollectionLine, namespace: str) -> Collection:
    return Collection(namespace=namespace, **fields_of(line, *COLLECTION_FIELDS))


def file_line(collection_id: str, f: IndexedFile, text: str | None) -> wire.FileLine:
    return wire.FileLine(
        collection=collection_id, path=f.path, hash=f.hash, chunks=f.chunks, text=text
    )


def indexed_file(line: wire.FileLine) -> IndexedFile:
    return IndexedFile(line.path, line.hash, line.chunks)


def interaction_line(i: Interaction) -> wire.InteractionLine:
    return wire.InteractionLine(
        **fields_of(i, *INTERACTION_FIELDS),
        results=[wire.ResultLine(id=r.id, relevance=r.relevance, score=r.score) for r in i.results],
    )


def interaction(line: wire.InteractionLine, namespace: str) -> Interaction:
    return Interaction(
        **fields_of(line, *INTERACTION_FIELDS),
        namespace=namespace,
        results=[InteractionResult(r.id, r.relevance, r.score) for r in line.results],
    )


def feedback_line(f: Feedback) -> wire.FeedbackLine:
    return wire.FeedbackLine(
        interaction_id=f.interaction_id, at=f.at, rating=f.rating, actor=f.actor, comment=f.comment
    )


def feedback(line: wire.FeedbackLine) -> Feedback:
    return Feedback(line.interaction_id, line.at, line.rating, line.comment, line.actor)


def reference_line(r: Reference) -> wire.ReferenceLine:
    return wire.ReferenceLine(
        id=r.id,
        question=r.question,
        answers=list(r.answers),
        source=r.source,
        actor=r.actor,
        at=r.at,
    )


def reference(line: wire.ReferenceLine, namespace: str) -> Reference:
    """The reference question of ``line``, in ``namespace``."""
    return Reference(
        namespace, line.id, line.question, tuple(line.answers), line.source, line.actor, line.at
    )


def deleted_line(item: RemovedEntry) -> wire.DeletedLine:
    return wire.DeletedLine(id=key_id(item.key), history=[_history_line(h) for h in item.history])


def removed_entry(line: wire.DeletedLine, namespace: str) -> RemovedEntry:
    """The audit trail of a deleted entry, in ``namespace``."""
    return RemovedEntry(
        entry_key(namespace, line.id),
        tuple(HistoryEvent(h.at, h.action, h.actor, h.detail) for h in line.history),
    )


def _history_line(h: HistoryEvent) -> wire.HistoryLine:
    return wire.HistoryLine(at=h.at, action=h.action, actor=h.actor, detail=h.detail)
