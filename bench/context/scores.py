"""What a context run counts per question, and the figures made of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bench.common import percentile
from bench.context.blocks import Inside

CONTEXT, NAIVE = "context", "naive"
RETRIEVE, SEARCH = "retrieve", "search"


def block_key(kind: str, budget: int) -> str:
    """``context@512``: one kind of block (or call) at one budget."""
    return f"{kind}@{budget}"


@dataclass
class BlockTally:
    """One kind of block at one budget, per question asked."""

    any_inside: list[bool] = field(default_factory=list)
    """A relevant document is inside the block."""
    all_inside: list[bool] = field(default_factory=list)
    """Every relevant document is inside the block."""
    only_cut: list[bool] = field(default_factory=list)
    """Evidence is inside, but only as a cut entry (no relevant document whole)."""
    tokens: list[int] = field(default_factory=list)
    entries: list[int] = field(default_factory=list)
    over_budget: int = 0
    """Blocks of more tokens than the budget (none expected)."""

    def note(
        self, found: Inside, relevant: int, tokens: int, entries: int, max_tokens: int
    ) -> None:
        """One question's block: ``found`` of its ``relevant`` documents inside, ``tokens``
        long, holding ``entries`` entries."""
        self.any_inside.append(bool(found.held))
        self.all_inside.append(relevant > 0 and len(found.held) >= relevant)
        self.only_cut.append(bool(found.cut) and not found.whole)
        self.tokens.append(tokens)
        self.entries.append(entries)
        self.over_budget += tokens > max_tokens


@dataclass
class CallTally:
    """The calls of one kind (a retrieve, a context at one budget, a search)."""

    latencies_ms: list[float] = field(default_factory=list)
    model_calls: list[int | None] = field(default_factory=list)
    """Read-time model calls (query and passage embeddings) of each call (None: the
    service did not say), in the order of ``latencies_ms``."""
    query_tokens: list[int] = field(default_factory=list)


def share(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def mean(values: list[int] | list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def score_block(tally: BlockTally) -> dict[str, Any]:
    return {
        "questions": len(tally.any_inside),
        "evidence_inside": share(tally.any_inside),
        "all_evidence_inside": share(tally.all_inside),
        "inside_only_cut": share(tally.only_cut),
        "mean_tokens": mean(tally.tokens),
        "mean_entries": mean(tally.entries),
        "over_budget": tally.over_budget,
    }


def score_calls(calls: Mapping[str, CallTally]) -> dict[str, dict[str, Any]]:
    """Per kind of call: p50 and p95 latency, the p50 against retrieve's, the p50 of the
    calls that embedded the question and of those that found its vector kept, and the
    model work per call."""
    base = percentile(calls[RETRIEVE].latencies_ms, 50) if RETRIEVE in calls else None
    scored = {}
    for kind, tally in calls.items():
        p50 = percentile(tally.latencies_ms, 50)
        paired = list(zip(tally.latencies_ms, tally.model_calls, strict=True))
        said = [c for _, c in paired if c is not None]
        scored[kind] = {
            "calls": len(tally.latencies_ms),
            "p50_ms": p50,
            "p95_ms": percentile(tally.latencies_ms, 95),
            "p50_vs_retrieve": p50 / base if base else None,
            "p50_ms_embedding": percentile([ms for ms, c in paired if c], 50),
            "p50_ms_vector_kept": percentile([ms for ms, c in paired if c == 0], 50),
            "model_calls_per_call": mean(said),
            "query_tokens_per_call": mean(tally.query_tokens),
        }
    return scored
