"""In-memory stand-ins for the ports in ``service.domain.ports``, for fast unit tests.

They follow the contracts of the real adapters closely enough for ``Memory`` and
``Retriever``: the ledger keeps entry states, both indexes apply every ``Filters`` field.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from service.domain.models import EMBEDDED_TIERS, Entry, Filters, Hit, StoredEntry, Tier

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def matches(entry: Entry, f: Filters) -> bool:
    """Whether ``entry`` passes every filter, as the real stores apply them."""
    return (
        entry.namespace == f.namespace
        and entry.tier in f.tiers
        and (entry.expires_at is None or entry.expires_at > f.now)
        and (f.include_archived or not entry.archived)
        and (f.speaker is None or entry.speaker == f.speaker)
        and (f.chain_type is None or entry.chain_type == f.chain_type)
        and all(tag in entry.tags for tag in f.tags)
        and (f.since is None or entry.timestamp >= f.since)
        and (f.until is None or entry.timestamp <= f.until)
    )


class FakeEmbedder:
    """Hashed bag of words: the same text always gives the same unit vector."""

    name = "fake-bag-of-words"

    def __init__(self, dimension: int = 32) -> None:
        self.dimension = dimension
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.calls.append(list(texts))
        return [self.vector(t) for t in texts]

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
    """Entries by key with their state: ``pending``, ``synced`` or ``deleting``."""

    def __init__(self) -> None:
        self.entries: dict[str, StoredEntry] = {}
        self.states: dict[str, str] = {}

    def put(self, stored: Sequence[StoredEntry]) -> None:
        for s in stored:
            self.entries[s.entry.key] = s
            self.states[s.entry.key] = "pending"

    def mark_synced(self, keys: Iterable[str]) -> None:
        for key in keys:
            if key in self.states:
                self.states[key] = "synced"

    def mark_deleting(self, keys: Sequence[str]) -> list[str]:
        existing = [k for k in keys if k in self.entries]
        for key in existing:
            self.states[key] = "deleting"
        return existing

    def remove(self, keys: Sequence[str]) -> None:
        for key in keys:
            self.entries.pop(key, None)
            self.states.pop(key, None)

    def get(self, keys: Sequence[str]) -> dict[str, StoredEntry]:
        return {
            k: self.entries[k] for k in keys if k in self.entries and self.states[k] != "deleting"
        }

    def unsynced(self) -> tuple[list[StoredEntry], list[str]]:
        pending = [self.entries[k] for k, s in self.states.items() if s == "pending"]
        deleting = [k for k, s in self.states.items() if s == "deleting"]
        return pending, deleting

    def scan(self, batch: int = 500) -> Iterator[list[StoredEntry]]:
        live = [self.entries[k] for k in sorted(self.entries) if self.states[k] != "deleting"]
        for start in range(0, len(live), batch):
            yield live[start : start + batch]

    def count(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for key, s in self.entries.items():
            if self.states[key] != "deleting":
                counts[s.entry.tier] = counts.get(s.entry.tier, 0) + 1
        return counts


class FakeVectorStore:
    """Chunks of embedded entries per tier; cosine search, one hit per entry."""

    def __init__(self) -> None:
        self.tiers: dict[Tier, dict[str, StoredEntry]] = {t: {} for t in EMBEDDED_TIERS}

    @property
    def keys(self) -> set[str]:
        return {k for entries in self.tiers.values() for k in entries}

    def upsert(self, stored: Sequence[StoredEntry]) -> None:
        for s in stored:
            if any(c.vector is None for c in s.chunks):
                raise ValueError(f"{s.entry.key}: chunk without a vector")
            self.tiers[s.entry.tier][s.entry.key] = s

    def delete(self, keys: Sequence[str]) -> None:
        for entries in self.tiers.values():
            for key in keys:
                entries.pop(key, None)

    def search(
        self, tier: Tier, vector: Sequence[float], filters: Filters, limit: int
    ) -> list[Hit]:
        hits = []
        for key, s in self.tiers[tier].items():
            if not matches(s.entry, filters):
                continue
            scored = [
                (sum(a * b for a, b in zip(vector, c.vector or (), strict=True)), c.number)
                for c in s.chunks
            ]
            score, number = max(scored, key=lambda pair: pair[0])
            hits.append(Hit(key, score, number))
        hits.sort(key=lambda h: -h.score)
        return hits[:limit]

    def count(self, tier: Tier) -> int:
        return len(self.tiers[tier])

    def clear(self) -> None:
        for entries in self.tiers.values():
            entries.clear()

    def health(self) -> str:
        return "ok"


class FakeKeywordStore:
    """Entries by key; the score of a match is how many query words its text holds."""

    def __init__(self) -> None:
        self.entries: dict[str, StoredEntry] = {}

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
            document = words(
                f"{s.entry.speaker}: {s.entry.text}" if s.entry.speaker else s.entry.text
            )
            score = float(sum(1 for w in document if w in terms))
            if score > 0:
                hits.append(Hit(key, score))
        hits.sort(key=lambda h: -h.score)
        return hits[:limit]

    def count(self) -> int:
        return len(self.entries)

    def clear(self) -> None:
        self.entries.clear()


T0 = 1_700_000_000.0
"""A fixed 'now' for tests: 2023-11-14T22:13:20Z."""


def make_entry(id: str, text: str, tier: Tier = "A", namespace: str = "ns", **fields: Any) -> Entry:
    """An entry with test defaults; ``fields`` sets any other ``Entry`` field."""
    return Entry(id=id, namespace=namespace, tier=tier, text=text, timestamp=T0, **fields)


def make_filters(
    namespace: str = "ns", tiers: Sequence[Tier] = ("A", "C", "E"), **fields: Any
) -> Filters:
    return Filters(namespace=namespace, tiers=tuple(tiers), now=T0 + 1, **fields)
