"""In-memory stand-ins for the ports in ``service.domain.ports``, for fast unit tests.

They follow the contracts of the real adapters (``service.stores``) closely enough for
``Memory``, ``Retriever`` and the lifecycle jobs:

- ``FakeLedger`` keeps entry states and history like ``SqliteLedger``;
- ``FakeVectorStore`` holds one record per chunk in one collection per embedded tier, like
  ``ChromaVectorStore`` (so ``count`` counts chunks), and has no ``archived`` field: Memory
  keeps archived entries out of it;
- ``FakeKeywordStore`` holds one document per entry, like ``TantivyKeywordStore``.

In both indexes ``include_archived`` lifts the archived filter and the expiry filter.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from service.domain.interactions import Feedback, Interaction
from service.domain.models import (
    EMBEDDED_TIERS,
    Chunk,
    Entry,
    Filters,
    HistoryEvent,
    Hit,
    StoredEntry,
    Tier,
)
from service.domain.texts import keyword_text

if TYPE_CHECKING:
    from service.domain.ports import Embedder, InteractionLog, KeywordStore, Ledger, VectorStore

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def live(entry: Entry, f: Filters) -> bool:
    """Not archived and not expired, unless ``include_archived`` lifts both conditions."""
    return f.include_archived or (
        not entry.archived and (entry.expires_at is None or entry.expires_at > f.now)
    )


def _common(entry: Entry, f: Filters) -> bool:
    return (
        entry.namespace == f.namespace
        and (f.speaker is None or entry.speaker == f.speaker)
        and (f.chain_type is None or entry.chain_type == f.chain_type)
        and all(tag in entry.tags for tag in f.tags)
        and (f.since is None or entry.timestamp >= f.since)
        and (f.until is None or entry.timestamp <= f.until)
        and (f.kind is None or entry.kind == f.kind)
    )


def matches(entry: Entry, f: Filters) -> bool:
    """Whether ``entry`` passes every filter, as the keyword store applies them."""
    return _common(entry, f) and entry.tier in f.tiers and live(entry, f)


def vector_matches(entry: Entry, f: Filters) -> bool:
    """As the vector store filters one tier's collection: no tier or archived condition
    (the collection is the tier; archived entries are never upserted), expiry unless
    ``include_archived``."""
    return _common(entry, f) and (
        f.include_archived or entry.expires_at is None or entry.expires_at > f.now
    )


class FakeEmbedder:
    """Hashed bag of words: the same text always gives the same unit vector."""

    name = "fake-bag-of-words"
    backend = "fake"

    def __init__(self, dimension: int = 32) -> None:
        self.dimension = dimension
        self.calls: list[list[str]] = []
        """Texts of every ``embed`` call, in order (``count_tokens`` is not recorded here)."""
        self.token_calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.calls.append(list(texts))
        return [self.vector(t) for t in texts]

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Words plus the two special tokens a BERT-style model adds."""
        self.token_calls.append(list(texts))
        return [self.tokens(t) for t in texts]

    @staticmethod
    def tokens(text: str) -> int:
        return len(words(text)) + 2

    @property
    def texts(self) -> list[str]:
        """Every text embedded so far, in order."""
        return [t for call in self.calls for t in call]

    def vector(self, text: str) -> tuple[float, ...]:
        counts = [0.0] * self.dimension
        for word in words(text):
            digest = hashlib.sha256(word.encode()).digest()
            counts[int.from_bytes(digest[:4], "big") % self.dimension] += 1.0
        norm = math.sqrt(sum(c * c for c in counts))
        if norm == 0:
            return (1.0,) + (0.0,) * (self.dimension - 1)
        return tuple(c / norm for c in counts)


class FakeLedger:
    """Entries by key with their state: ``pending``, ``synced`` or ``deleting``; and the
    history of every key, kept after the entry is removed."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.entries: dict[str, StoredEntry] = {}
        self.states: dict[str, str] = {}
        self.events: dict[str, list[HistoryEvent]] = {}
        self.clock = clock
        """Time of history events recorded without ``at`` (the real ledger uses time.time)."""
        self.scan_batch = 500
        """Batch size of ``scan`` when the caller gives none."""

    def _record(self, key: str, action: str, actor: str, at: float | None) -> None:
        when = self.clock() if at is None else at
        self.events.setdefault(key, []).append(HistoryEvent(when, action, actor))

    def _live(self, key: str) -> bool:
        return key in self.entries and self.states[key] != "deleting"

    def put(
        self,
        stored: Sequence[StoredEntry],
        *,
        actor: str = "",
        action: str | None = None,
        at: float | None = None,
    ) -> None:
        existing = {s.entry.key for s in stored if s.entry.key in self.entries}
        for s in stored:
            key = s.entry.key
            self.entries.pop(key, None)  # a rewrite arrives last, as a new row does
            self.entries[key] = s
            self.states[key] = "pending"
            self._record(key, action or ("updated" if key in existing else "created"), actor, at)

    def mark_synced(self, keys: Iterable[str]) -> None:
        for key in keys:
            if key in self.states:
                self.states[key] = "synced"

    def mark_deleting(self, keys: Sequence[str]) -> list[str]:
        existing = [k for k in keys if k in self.entries]
        for key in existing:
            self.states[key] = "deleting"
        return existing

    def remove(self, keys: Sequence[str], *, actor: str = "", at: float | None = None) -> None:
        for key in keys:
            self.entries.pop(key, None)
            self.states.pop(key, None)
            self._record(key, "deleted", actor, at)

    def history(self, key: str) -> list[HistoryEvent]:
        return sorted(self.events.get(key, []), key=lambda e: e.at)

    def select_keys(
        self,
        *,
        tier: str,
        archived: bool = False,
        expires_before: float | None = None,
        older_than: float | None = None,
        limit: int = 1000,
    ) -> list[str]:
        found = [
            key
            for key, s in self.entries.items()
            if self._live(key)
            and s.entry.tier == tier
            and s.entry.archived == archived
            and (
                expires_before is None
                or (s.entry.expires_at is not None and s.entry.expires_at <= expires_before)
            )
            and (older_than is None or s.entry.timestamp < older_than)
        ]
        return found[:limit]

    def missing_vectors(self, limit: int = 500) -> list[str]:
        found = [
            key
            for key, s in self.entries.items()
            if self._live(key)
            and s.entry.tier in EMBEDDED_TIERS
            and any(c.vector is None for c in s.chunks)
        ]
        return found[:limit]

    def vector_count(self) -> int:
        return sum(
            1
            for key, s in self.entries.items()
            if self._live(key) and s.entry.tier in EMBEDDED_TIERS and not s.entry.archived
            for c in s.chunks
            if c.vector is not None
        )

    def stats(self) -> list[tuple[str, str, bool, int, int, int, int]]:
        """Per (namespace, tier, archived): entries, vectors, tokens embedded, tokens."""
        groups: dict[tuple[str, str, bool], list[int]] = {}
        for key, s in self.entries.items():
            if not self._live(key):
                continue
            e = s.entry
            row = groups.setdefault((e.namespace, e.tier, e.archived), [0, 0, 0, 0])
            vectors = sum(1 for c in s.chunks if c.vector is not None)
            row[0] += 1
            row[1] += vectors
            row[2] += s.tokens if vectors else 0
            row[3] += s.tokens
        return [
            (ns, tier, arch, entries, vectors, embedded, tokens)
            for (ns, tier, arch), (entries, vectors, embedded, tokens) in sorted(groups.items())
        ]

    def get(self, keys: Sequence[str]) -> dict[str, StoredEntry]:
        return {k: self.entries[k] for k in keys if self._live(k)}

    def vectors(self, keys: Sequence[str]) -> dict[str, list[tuple[float, ...]]]:
        return {
            k: [c.vector for c in s.chunks if c.vector is not None]
            for k, s in self.get(keys).items()
            if s.has_vectors
        }

    def last_in_thread(self, namespace: str, thread: str) -> Entry | None:
        for key, s in reversed(self.entries.items()):
            if s.entry.namespace == namespace and s.entry.thread == thread and self._live(key):
                return s.entry
        return None

    def unsynced(self) -> tuple[list[StoredEntry], list[str]]:
        pending = [self.entries[k] for k, s in self.states.items() if s == "pending"]
        deleting = [k for k, s in self.states.items() if s == "deleting"]
        return pending, deleting

    def scan(self, batch: int | None = None) -> Iterator[list[StoredEntry]]:
        size = batch or self.scan_batch
        entries = [self.entries[k] for k in sorted(self.entries) if self._live(k)]
        for start in range(0, len(entries), size):
            yield entries[start : start + size]

    def count(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for key, s in self.entries.items():
            if self._live(key):
                counts[s.entry.tier] = counts.get(s.entry.tier, 0) + 1
        return counts


class FakeVectorStore:
    """One record per chunk (id ``key#number``) in one collection per embedded tier; cosine
    search, one hit per entry."""

    def __init__(self) -> None:
        self.records: dict[Tier, dict[str, tuple[StoredEntry, Chunk]]] = {
            t: {} for t in EMBEDDED_TIERS
        }

    @property
    def tiers(self) -> dict[Tier, dict[str, StoredEntry]]:
        """Each collection's entries by key (a read-only view of the records)."""
        return {
            tier: {s.entry.key: s for s, _ in records.values()}
            for tier, records in self.records.items()
        }

    @property
    def keys(self) -> set[str]:
        return self.entry_keys()

    def upsert(self, stored: Sequence[StoredEntry]) -> None:
        for s in stored:
            if s.entry.tier not in EMBEDDED_TIERS:
                continue  # as Chroma: only the A and C collections exist
            for c in s.chunks:
                if c.vector is None:
                    raise ValueError(f"{s.entry.key}: chunk without a vector")
                self.records[s.entry.tier][f"{c.key}#{c.number}"] = (s, c)

    def delete(self, keys: Sequence[str]) -> None:
        gone = set(keys)
        for records in self.records.values():
            for record in [r for r, (s, _) in records.items() if s.entry.key in gone]:
                del records[record]

    def search(
        self, tier: Tier, vector: Sequence[float], filters: Filters, limit: int
    ) -> list[Hit]:
        scored = [
            (sum(a * b for a, b in zip(vector, c.vector or (), strict=True)), s.entry.key, c.number)
            for s, c in self.records[tier].values()
            if vector_matches(s.entry, filters)
        ]
        scored.sort(key=lambda t: -t[0])
        # As Chroma: the best ``2 x limit`` chunks, the first of each entry, ``limit`` entries.
        hits: dict[str, Hit] = {}
        for score, key, number in scored[: limit * 2]:
            if key not in hits:
                hits[key] = Hit(key, score, number)
        return list(hits.values())[:limit]

    def count(self, tier: Tier) -> int:
        """Chunk records in the tier's collection, as Chroma counts."""
        return len(self.records[tier])

    def entry_keys(self) -> set[str]:
        return {s.entry.key for records in self.records.values() for s, _ in records.values()}

    def delete_expired(self, now: float) -> None:
        records = self.records["C"]
        for record in [
            r
            for r, (s, _) in records.items()
            if s.entry.expires_at is not None and s.entry.expires_at <= now
        ]:
            del records[record]

    def clear(self) -> None:
        for records in self.records.values():
            records.clear()

    def health(self) -> str:
        return "ok"


class FakeKeywordStore:
    """Entries by key; the score of a match is how many query words its text holds."""

    def __init__(self) -> None:
        self.entries: dict[str, StoredEntry] = {}
        self.optimized = 0
        """How many times ``optimize`` ran."""

    @property
    def keys(self) -> set[str]:
        return set(self.entries)

    def apply(self, upserts: Sequence[StoredEntry], deletes: Sequence[str]) -> None:
        for key in deletes:
            self.entries.pop(key, None)
        for s in upserts:
            self.entries[s.entry.key] = s

    def search(self, text: str, filters: Filters, limit: int) -> list[Hit]:
        terms = set(words(text))
        hits = []
        for key, s in self.entries.items():
            if not matches(s.entry, filters):
                continue
            document = words(keyword_text(s.entry))
            # Saturating in each term's count, as BM25 is (k1 = 1.2).
            counts = [document.count(t) for t in terms]
            score = sum(n * 2.2 / (n + 1.2) for n in counts)
            if score > 0:
                hits.append(Hit(key, score))
        hits.sort(key=lambda h: -h.score)
        return hits[:limit]

    def score_bound(self, text: str) -> float:
        return 2.2 * len(set(words(text)))

    def replace_all(self, batches: Iterable[Sequence[StoredEntry]]) -> None:
        """The new set replaces the old at once; if ``batches`` raises, the old stays."""
        fresh: dict[str, StoredEntry] = {}
        for batch in batches:
            for s in batch:
                fresh[s.entry.key] = s
        self.entries = fresh

    def optimize(self) -> None:
        self.optimized += 1

    def count(self) -> int:
        return len(self.entries)

    def clear(self) -> None:
        self.entries.clear()


class FakeInteractionLog:
    def __init__(self) -> None:
        self.interactions: dict[str, Interaction] = {}
        self.feedback: list[Feedback] = []

    def record(self, interaction: Interaction) -> None:
        self.interactions[interaction.id] = interaction

    def get(self, interaction_id: str) -> Interaction | None:
        return self.interactions.get(interaction_id)

    def add_feedback(self, feedback: Feedback) -> None:
        self.feedback.append(feedback)

    def between(
        self, namespace: str, start: float, end: float
    ) -> tuple[list[Interaction], list[Feedback]]:
        asked = [
            i
            for i in self.interactions.values()
            if i.namespace == namespace and start <= i.at < end
        ]
        ids = {i.id for i in asked}
        return asked, [f for f in self.feedback if f.interaction_id in ids]


T0 = 1_700_000_000.0
"""A fixed 'now' for tests: 2023-11-14T22:13:20Z."""


def make_entry(id: str, text: str, tier: Tier = "A", namespace: str = "ns", **fields: Any) -> Entry:
    """An entry with test defaults; ``fields`` sets any other ``Entry`` field."""
    return Entry(id=id, namespace=namespace, tier=tier, text=text, **{"timestamp": T0, **fields})


def make_filters(
    namespace: str = "ns", tiers: Sequence[Tier] = ("A", "C", "E"), **fields: Any
) -> Filters:
    return Filters(namespace=namespace, tiers=tuple(tiers), now=T0 + 1, **fields)


if TYPE_CHECKING:  # `mypy tests/fakes.py` checks that each fake satisfies its port.
    _embedder: Embedder = FakeEmbedder()
    _ledger: Ledger = FakeLedger()
    _vectors: VectorStore = FakeVectorStore()
    _keywords: KeywordStore = FakeKeywordStore()
    _interactions: InteractionLog = FakeInteractionLog()
