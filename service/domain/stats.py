"""What is stored per namespace and tier, and how much embedding the tiers avoided."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

StatsRow = tuple[str, str, bool, int, int, int, int]
"""namespace, tier, archived, entries, vectors, tokens embedded, tokens in all."""


@dataclass
class TierStats:
    active: int = 0
    archived: int = 0
    vectors: int = 0
    tokens_embedded: int = 0
    tokens: int = 0


@dataclass(frozen=True)
class Totals:
    entries: int
    vectors: int
    tokens_embedded: int
    tokens_full_rag: int
    """Tokens had every entry been embedded, as plain RAG would."""
    embedding_avoided: float
    """Share of those tokens the tiers left unembedded."""
    quarantined: int = 0
    """Entries set aside because they could not be indexed."""


@dataclass(frozen=True)
class Stats:
    namespaces: dict[str, dict[str, TierStats]]
    totals: Totals
    disk: dict[str, int | None] = field(default_factory=dict)


def summarize(rows: Iterable[StatsRow], visible: Callable[[str], bool]) -> Stats:
    """Per-namespace, per-tier figures of the namespaces ``visible`` admits, with totals."""
    spaces: dict[str, dict[str, TierStats]] = {}
    for ns, tier, archived, entries, vectors, embedded, tokens in rows:
        if not visible(ns):
            continue
        t = spaces.setdefault(ns, {}).setdefault(tier, TierStats())
        if archived:
            t.archived += entries
        else:
            t.active += entries
        t.vectors += vectors
        t.tokens_embedded += embedded
        t.tokens += tokens
    every = [t for tiers in spaces.values() for t in tiers.values()]
    embedded = sum(t.tokens_embedded for t in every)
    full = sum(t.tokens for t in every)
    totals = Totals(
        entries=sum(t.active + t.archived for t in every),
        vectors=sum(t.vectors for t in every),
        tokens_embedded=embedded,
        tokens_full_rag=full,
        embedding_avoided=round(1 - embedded / full, 4) if full else 0.0,
    )
    return Stats(dict(sorted(spaces.items())), totals)
