"""The queries of a load run: keywords of sampled entries in question forms, none sent twice."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from bench.load.vocabulary import STOP, word_list
from bench.load.workload import TIERS

QUERY_SOURCE = {"A": 0.25, "C": 0.25, "E": 0.50}
"""The tier a query's source entry is drawn from."""
# Scaffolding of the generated texts: never a query keyword.
SCAFFOLD = frozenset(
    word_list(
        "adr context decision consequences instead because quick update looked concern "
        "yesterday exited code after error warn above threshold connection refused retry"
    )
)
QUESTIONS = {
    "A": (
        "what did we decide about {q}",
        "why did we choose {q}",
        "{q} decision",
        "which option for {q}",
    ),
    "C": (
        "what did {speaker} say about {q}",
        "discussion about {q}",
        "{q}",
        "any update on {q}",
    ),
    "E": ("{q}", "{q}", "when did {q} fail", "logs for {q}", "error {q}"),
}
KEYWORD_RE = re.compile(r"(?<![\w.\-/])[A-Za-z][\w.\-/]*[A-Za-z0-9]")


@dataclass(frozen=True)
class Query:
    text: str
    namespace: str
    source_tier: str


class Reservoir:
    """A uniform sample of each tier's entries, kept while the stream goes by."""

    def __init__(self, size: int, seed: int) -> None:
        self.size = size
        self.rng = random.Random(seed)
        self.seen = dict.fromkeys(TIERS, 0)
        self.items: dict[str, list[tuple[str, str, str]]] = {t: [] for t in TIERS}

    def offer(self, event: Mapping[str, Any]) -> None:
        tier = event["tier"]
        n = self.seen[tier]
        self.seen[tier] = n + 1
        item = (event["namespace"], str(event.get("speaker") or ""), event["text"])
        if n < self.size:
            self.items[tier].append(item)
        else:
            j = self.rng.randrange(n + 1)
            if j < self.size:
                self.items[tier][j] = item


def query_stream(reservoir: Reservoir, seed: int) -> Iterator[Query]:
    """Queries, each text new: 2-4 keywords of a sampled entry in a question form."""
    rng = random.Random(seed)
    tiers = [t for t in TIERS if reservoir.items[t]]
    weights = [QUERY_SOURCE[t] for t in tiers]
    seen: set[str] = set()
    misses = 0
    while tiers and misses < 10_000:
        tier = rng.choices(tiers, weights=weights)[0]
        ns, speaker, text = rng.choice(reservoir.items[tier])
        words = list(
            dict.fromkeys(
                w
                for w in KEYWORD_RE.findall(text)
                if len(w) > 2 and w.lower() not in STOP and w.lower() not in SCAFFOLD
            )
        )
        picked = rng.sample(words, min(rng.choice((2, 3, 3, 4)), len(words)))
        query = rng.choice(QUESTIONS[tier]).format(q=" ".join(picked), speaker=speaker)
        if not picked or query in seen:
            misses += 1
            continue
        seen.add(query)
        yield Query(query, ns, tier)


class QueryPlan:
    """The queries of every cell, none sent twice.

    The service caches query vectors and search outcomes, so a text sent again would
    measure a cache rather than a search (a run with ``--no-ingest`` against a service that
    answered the same seed's queries less than ``STRATA_QUERY_CACHE_SECONDS`` ago would too).
    A peer runs the very queries of the service cell it is compared with (same mode and
    concurrency).
    """

    def __init__(self, reservoir: Reservoir, seed: int, per_cell: int, warmup: int) -> None:
        self._stream = query_stream(reservoir, seed)
        self.per_cell = per_cell
        self.per_warmup = warmup
        self.cells: dict[tuple[str, int], list[Query]] = {}
        self.warmups: dict[str, list[Query]] = {}

    def _take(self, n: int) -> list[Query]:
        return list(itertools.islice(self._stream, n))

    def cell(self, mode: str, concurrency: int) -> list[Query]:
        key = (mode, concurrency)
        if key not in self.cells:
            self.cells[key] = self._take(self.per_cell)
        return self.cells[key]

    def warmup(self, name: str) -> list[Query]:
        if name not in self.warmups:
            self.warmups[name] = self._take(self.per_warmup)
        return self.warmups[name]
