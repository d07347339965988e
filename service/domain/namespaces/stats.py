"""What is stored per namespace and tier, and how much embedding the tiers avoided: the
tokens embedded when entries were written and those of passages embedded by reads since the
process started, against embedding every entry."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from service.domain.model import StoredCounts
from service.domain.search.usage import ModelWork, ReadUsage


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
    """Share of those tokens the tiers left unembedded, at write time and at read time."""
    tokens_read_time: int = 0
    """Tokens of passages embedded by reads since the process started."""
    quarantined: int = 0
    """Entries set aside because they could not be indexed."""


@dataclass(frozen=True)
class ReadTime:
    """Model work of reads since the process started, in the namespaces shown."""

    since: float
    passages: ModelWork
    queries: ModelWork | None
    """Query embeddings are not counted per namespace: None for a caller who does not see
    every namespace."""


@dataclass(frozen=True)
class Stats:
    namespaces: dict[str, dict[str, TierStats]]
    totals: Totals
    disk: dict[str, int | None] = field(default_factory=dict)
    read_passages: dict[str, ModelWork] = field(default_factory=dict)
    """Passages embedded by reads, per namespace shown (those with none left out)."""
    read_time: ReadTime | None = None
    """None when nothing counts read-time work."""


def avoided(tokens_embedded: int, tokens_read_time: int, tokens: int) -> float | None:
    """Share of ``tokens`` (embedding everything) the tiers kept from the model, once the
    tokens embedded at write time and at read time are paid; None without tokens. Below 0
    when reads have embedded more than embedding every entry once would have."""
    if not tokens:
        return None
    return 1 - (tokens_embedded + tokens_read_time) / tokens


def summarize(
    rows: Iterable[StoredCounts],
    visible: Callable[[str], bool],
    usage: ReadUsage | None = None,
    *,
    every_namespace: bool = True,
) -> Stats:
    """Per-namespace, per-tier figures of the namespaces ``visible`` admits, with totals;
    ``usage`` adds the model work of reads (its query work only with ``every_namespace``,
    as it is not counted per namespace)."""
    spaces: dict[str, dict[str, TierStats]] = {}
    for row in rows:
        if not visible(row.namespace):
            continue
        t = spaces.setdefault(row.namespace, {}).setdefault(row.tier, TierStats())
        if row.archived:
            t.archived += row.entries
        else:
            t.active += row.entries
        t.vectors += row.vectors
        t.tokens_embedded += row.tokens_embedded
        t.tokens += row.tokens
    read = {ns: work for ns, work in (usage.passages if usage else {}).items() if visible(ns)}
    for ns in read:
        spaces.setdefault(ns, {})
    every = [t for tiers in spaces.values() for t in tiers.values()]
    embedded = sum(t.tokens_embedded for t in every)
    full = sum(t.tokens for t in every)
    passages = sum(read.values(), ModelWork())
    share = avoided(embedded, passages.tokens, full)
    totals = Totals(
        entries=sum(t.active + t.archived for t in every),
        vectors=sum(t.vectors for t in every),
        tokens_embedded=embedded,
        tokens_full_rag=full,
        embedding_avoided=round(share, 4) if share is not None else 0.0,
        tokens_read_time=passages.tokens,
    )
    read_time = None
    if usage is not None:
        read_time = ReadTime(usage.since, passages, usage.queries if every_namespace else None)
    return Stats(dict(sorted(spaces.items())), totals, read_passages=read, read_time=read_time)
