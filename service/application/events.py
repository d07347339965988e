"""Writing, reading and deleting entries, and their history."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field

from schemas import wire
from service.application.auth import Principal
from service.application.chains import Chain, ChainSource, chains
from service.application.inputs import to_entries
from service.application.limits import Limits
from service.domain.aging.tiers import ExpiryPolicy
from service.domain.entries import Entry, HistoryEvent, entry_key
from service.domain.memory import Lifecycle, Writer
from service.domain.memory.chunking import chunk_count
from service.domain.memory.outcomes import WriteOutcome
from service.domain.ports import Entries, History
from service.errors import InvalidInput, NotFound, PayloadTooLarge
from service.settings import ChunkingSettings
from service.telemetry.tracing import OFF, Tracing

TIER_E_CHARS_PER_CHUNK = 10_000
"""Characters of tier E text a write is charged one chunk for, about ten chunks' worth of
text. Measured over REST on two cores (onnx-int8): a chunk embedded costs 30 to 45 ms of CPU,
10,000 characters of tier E text (chunked, its tokens counted, indexed) 7 to 10 ms of fresh
words and 1.3 ms of known ones. A tenth of the price of embedded text keeps logs cheap, yet an
agent's minute (3000 chunks) is 30 MB of tier E text: a request of 16 MiB takes over half."""


def write_cost(entries: Sequence[Entry], chunking: ChunkingSettings) -> float:
    """What a write of ``entries`` takes from its caller's allowance, in chunks: those it
    embeds (tiers A and C), and its tier E text in characters, ``TIER_E_CHARS_PER_CHUNK``
    to a chunk. Characters, not chunks or words: the cost of tier E text (its tokens
    counted, its chunks made and indexed) grows with its characters, and a text without
    white space is one chunk of any length."""
    embedded = sum(
        chunk_count(e.text, chunking.words, chunking.overlap) for e in entries if e.embedded
    )
    unembedded = sum(len(e.text) for e in entries if not e.embedded)
    return embedded + unembedded / TIER_E_CHARS_PER_CHUNK


@dataclass(frozen=True)
class Found:
    entry: Entry
    now: float
    """When it was read: an entry expired by then shows as archived."""
    chain: Chain = field(default_factory=Chain)
    """What it replaced and what replaced it."""


@dataclass(frozen=True)
class EntryHistory:
    id: str
    namespace: str
    events: list[HistoryEvent]


@dataclass(eq=False)
class EventUseCases:
    writer: Writer
    lifecycle: Lifecycle
    policy: ExpiryPolicy
    limits: Limits
    _: KW_ONLY
    entries: Entries
    histories: History
    relations: ChainSource
    chunking: ChunkingSettings
    max_batch: int
    clock: Callable[[], float]
    new_id: Callable[[], str]
    tracing: Tracing = OFF

    def write(self, principal: Principal, events: Sequence[wire.Event]) -> WriteOutcome:
        """Store a batch of events: all of it or, on any invalid event, none of it; nor
        when its work (``write_cost``) is over the caller's allowance."""
        if len(events) > self.max_batch:
            raise PayloadTooLarge(
                f"events: {len(events)} events, at most {self.max_batch} per batch"
            )
        entries = self.check(principal, events)
        self.limits.embedding(principal, write_cost(entries, self.chunking))
        supersedes = {
            e.key: list(dict.fromkeys(event.supersedes))
            for e, event in zip(entries, events, strict=True)
            if event.supersedes
        }
        once = [e.key for e, event in zip(entries, events, strict=True) if event.id is None]
        namespaces = {e.namespace for e in entries}
        store = namespaces.pop() if len(namespaces) == 1 else "*"
        with self.tracing.memory("create_memory", store) as span:
            try:
                outcome = self.writer.write(
                    entries, principal.name, supersedes=supersedes, once=once
                )
            except InvalidInput as exc:  # the domain names the n-th entry, the request an event
                raise exc.named("entries", "events") from None
            self.tracing.records(span, [{"id": e.id, "content": e.text} for e in entries])
        return outcome

    def check(self, principal: Principal, events: Sequence[wire.Event]) -> list[Entry]:
        """The entries a write of ``events`` would store, or InvalidInput naming every bad
        field of them; nothing is written."""
        return to_entries(
            events,
            now=self.clock(),
            new_id=self.new_id,
            policy=self.policy,
            namespace=principal.namespace,
            chunking=self.chunking,
        )

    def get(self, principal: Principal, entry_id: str, namespace: str | None) -> Found:
        ns = principal.namespace(namespace)
        key = entry_key(ns, entry_id)
        with self.tracing.memory("search_memory", ns, record_id=entry_id) as span:
            found = self.entries.get([key]).get(key)
            self.tracing.records(span, [] if found is None else [{"id": entry_id}])
        if found is None:
            raise NotFound(f"no entry {entry_id!r} in namespace {ns!r}")
        return Found(found.entry, self.clock(), chains(self.relations, [key])[key])

    def delete(self, principal: Principal, entry_id: str, namespace: str | None) -> str:
        """Delete an entry; returns its namespace."""
        ns = principal.namespace(namespace)
        with self.tracing.memory("delete_memory", ns, record_id=entry_id):
            deleted = self.lifecycle.delete([entry_key(ns, entry_id)], principal.name)
        if not deleted:
            raise NotFound(f"no entry {entry_id!r} in namespace {ns!r}")
        return ns

    def history(self, principal: Principal, entry_id: str, namespace: str | None) -> EntryHistory:
        """What happened to an entry, oldest first; kept after the entry is deleted."""
        ns = principal.namespace(namespace)
        events = self.histories.history(entry_key(ns, entry_id))
        if not events:
            raise NotFound(f"no entry {entry_id!r} in namespace {ns!r}")
        return EntryHistory(entry_id, ns, events)
