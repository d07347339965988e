"""What is stored, and how much embedding work the tiers avoided."""

from __future__ import annotations

from pathlib import Path

from litestar import get

from schemas import wire
from service.api.deps import PrincipalDep, ResourcesDep


@get("/v1/stats", sync_to_thread=True, tags=["stats"])
def stats(resources: ResourcesDep, principal: PrincipalDep) -> wire.StatsResponse:
    """Entries, vectors and tokens per namespace and tier. An agent key sees its namespaces."""
    spaces: dict[str, dict[str, wire.TierStats]] = {}
    for ns, tier, archived, entries, vectors, embedded, tokens in resources.ledger.stats():
        if principal.namespaces is not None and ns not in principal.namespaces:
            continue
        t = spaces.setdefault(ns, {}).setdefault(tier, wire.TierStats())
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
    totals = wire.Totals(
        entries=sum(t.active + t.archived for t in every),
        vectors=sum(t.vectors for t in every),
        tokens_embedded=embedded,
        tokens_full_rag=full,
        embedding_avoided=round(1 - embedded / full, 4) if full else 0.0,
    )
    data = resources.settings.data_dir
    disk: dict[str, int | None] = {
        "ledger": sum(_size(p) for p in data.glob("ledger.sqlite3*")),
        "tantivy": _size(data / "tantivy"),
        "chroma": None if resources.settings.chroma_url else _size(data / "chroma"),
    }
    return wire.StatsResponse(
        [wire.NamespaceStats(ns, tiers) for ns, tiers in sorted(spaces.items())], totals, disk
    )


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
