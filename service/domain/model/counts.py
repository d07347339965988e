"""What the ledger holds of each namespace's tiers."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StoredCounts:
    """What the ledger holds of one namespace's tier, its archived entries or the others."""

    namespace: str
    tier: str
    archived: bool
    entries: int
    """Live entries (neither being deleted nor set aside)."""
    vectors: int
    """Chunks of those entries that have a vector."""
    tokens_embedded: int
    """Tokens of the entries that have at least one vector: what the model was paid."""
    tokens: int
    """Tokens of every entry: what embedding them all would cost."""
