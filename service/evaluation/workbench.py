"""A BEIR-format set loaded into a throw-away service instance, and what ``strata calibrate``
records there.

The set is loaded with the same ``STRATA_*`` settings as ``strata serve`` (model, reranker,
weights; tiers from ``metadata.tier``, ages from ``metadata.age_days``) into a temporary data
directory, and kept open while both fits run:

1. ``candidates``: for every query with a relevant document, its hybrid search's candidates
   (``POOL_DEPTH`` from each list) with the features the learned fusion scores them by, and
   which are relevant (``ranking_fit``).
2. ``observe``: every query asked through retrieve, with the evidence the answer gathered and
   the truth: a question is *answered* when a relevant document is among the entries
   returned. When a set holds several namespaces, each query is asked once more in the next
   namespace, where nothing answers it: what a question about something memory never
   recorded looks like (``calibrate``).

With ``small``, that many questions (spread over the set) also get a small namespace of their
own, as most agents' memory is: their evidence and ``SMALL_OTHERS`` other entries of the same
source. Each is asked there, and once more in another question's small namespace (of another
source where the set has several), in both steps; they are marked ``small``, so the fits
learn from them and the reports of a set stay those of its own namespaces.

Nothing touches a running service or its data.
"""

from __future__ import annotations

import contextlib
import random
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from schemas import wire
from service.application.auth import OPEN
from service.bootstrap import Runtime, load_reranker
from service.domain.entries import TIERS
from service.domain.model import Filters
from service.domain.search.hydration import replaced_matches
from service.domain.search.intent import ASKED_KINDS, MemoryKind, asks_for_decision, kind_of
from service.domain.search.learned import (
    SETTLED,
    LearnedFusion,
    RankingModel,
    entry_features,
    pool_logits,
    settled_rows,
)
from service.domain.text import content_terms, named_terms
from service.evaluation.beir import (
    Doc,
    Query,
    load_corpus,
    load_qrels,
    load_queries,
    namespace_for,
    to_event,
    write_order,
)
from service.lifespan import open_runtime
from service.settings import Settings

BATCH = 256
PREFIX = "calibrate"
POOL_DEPTH = 100
"""Candidates taken from each list for the ranking fit: what a search of up to 33 results
reads (the service takes at least 3 x limit, and at least STRATA_CANDIDATES, from each)."""

SMALL_OTHERS = 24
"""Entries of a small namespace besides the question's evidence."""

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Observation:
    features: Mapping[str, float]
    confidence: float
    """What the calibration in use said."""
    answered: bool
    """A relevant document is among the entries returned."""
    elsewhere: bool = False
    """Asked in another namespace of the set, where nothing answers it."""
    small: bool = False
    """Asked in a small namespace (``Workbench`` with ``small``)."""


@dataclass(frozen=True)
class Candidates:
    """One question's hybrid-search candidates: each one's ranking features, and whether
    it is relevant."""

    features: list[dict[str, float]]
    """``FEATURES``, with what the question asks for unknown (``kind_features``)."""
    relevant: list[bool]
    kinds: list[MemoryKind] = field(default_factory=list)
    """Each candidate's kind (``service.domain.search.intent.kind_of``)."""
    vector: tuple[float, ...] = ()
    """The question's vector."""
    group: str = ""
    """The namespace it was asked in."""
    elsewhere: bool = False
    """Asked in another namespace of the set, where nothing answers it (every candidate
    irrelevant)."""
    small: bool = False
    """Asked in a small namespace (``Workbench`` with ``small``)."""
    question: str = ""
    """The question's id in its set."""


def with_asked(found: Candidates, asked: Mapping[str, float]) -> list[dict[str, float]]:
    """The candidates' features with what the question asks for filled in: each kind's
    ``<kind>_asked`` is its indicator times the probability of the kind."""
    return [
        {
            **row,
            **{f"{kind}_asked": row[kind] * asked.get(kind, 0.0) for kind in ASKED_KINDS},
        }
        for row in found.features
    ]


def scored_rows(found: Candidates, ranking: RankingModel) -> list[dict[str, float]]:
    """The candidates' features as ``ranking`` scores them in a search: what the question
    asks for read by its intent head (unknown without one)."""
    asked = ranking.intent.asked(found.vector) if ranking.intent is not None else {}
    return with_asked(found, asked)


@dataclass(frozen=True)
class Small:
    """A question's small namespace."""

    query: Query
    home: str
    """The namespace of the set the question belongs to."""
    namespace: str
    docs: list[Doc]
    """Its evidence, then the others drawn from its home."""


class Workbench:
    """One set loaded into a throw-away instance, open until the ``load`` context ends."""

    def __init__(
        self, runtime: Runtime, dataset: Path, max_queries: int | None, small: int = 0
    ) -> None:
        self.runtime = runtime
        self.name = dataset.name
        docs = load_corpus(dataset)
        self.qrels = load_qrels(dataset)
        judged = {q for q, found in self.qrels.items() if any(r > 0 for r in found.values())}
        queries = [q for q in load_queries(dataset) if q.id in judged]
        self.queries: list[Query] = queries[:max_queries] if max_queries else queries
        self.source = {
            (namespace_for(PREFIX, d.metadata.get("namespace")), d.id): d.source_id for d in docs
        }
        self.namespaces = sorted({namespace for namespace, _ in self.source})
        self.docs = docs
        self.small = self._small_namespaces(small)
        """Each question given a small namespace: its entries, and where it is asked."""

    def _small_namespaces(self, count: int) -> list[Small]:
        if count <= 0 or not self.queries:
            return []
        by_id = {d.source_id: d for d in self.docs}
        source: dict[str, list[Doc]] = {}
        for d in self.docs:
            source.setdefault(namespace_for(PREFIX, d.metadata.get("namespace")), []).append(d)
        step = max(1, len(self.queries) // count)
        small = []
        for n, query in enumerate(self.queries[::step][:count]):
            relevant = self._relevant(query)
            home = namespace_for(PREFIX, query.namespace)
            others = [d for d in source.get(home, []) if d.source_id not in relevant]
            drawn = random.Random(n).sample(others, min(SMALL_OTHERS, len(others)))
            evidence = [by_id[i] for i in sorted(relevant) if i in by_id]
            small.append(Small(query, home, f"{PREFIX}-small-{n}", [*evidence, *drawn]))
        for s in small:
            self.source.update({(s.namespace, d.id): d.source_id for d in s.docs})
        return small

    def _small_elsewhere(self) -> list[tuple[Small, str]]:
        """Each small namespace's question with the small namespace it is asked in where
        nothing answers it: the next one of another source, else the next one."""
        asked = []
        for n, s in enumerate(self.small):
            after = self.small[n + 1 :] + self.small[:n]
            other = next((o for o in after if o.home != s.home), after[0] if after else None)
            if other is not None:
                asked.append((s, other.namespace))
        return asked

    @classmethod
    @contextlib.contextmanager
    def load(
        cls,
        settings: Settings,
        dataset: Path,
        *,
        max_queries: int | None = None,
        small: int = 0,
        progress: Progress | None = None,
    ) -> Iterator[Workbench]:
        """``dataset`` written into a throw-away instance with ``settings``, with ``small``
        questions given a small namespace each."""
        with tempfile.TemporaryDirectory(prefix="strata-calibrate-") as scratch:
            local = settings.replace(
                data_dir=Path(scratch), chroma_url="", database_url="", jobs="off"
            )
            runtime = open_runtime(local)
            try:
                load_reranker(local, runtime.searcher)
                bench = cls(runtime, dataset, max_queries, small)
                bench._ingest(progress)
                bench._ingest_small(progress)
                yield bench
            finally:
                runtime.close()

    def _ingest(self, progress: Progress | None) -> None:
        now = datetime.now(UTC)
        done = 0
        for phase in write_order(self.docs):
            for start in range(0, len(phase), BATCH):
                batch = phase[start : start + BATCH]
                events = [
                    msgspec.convert(to_event(d, "A", PREFIX, now=now), wire.Event) for d in batch
                ]
                self.runtime.services.events.write(OPEN, events)
                done += len(batch)
                if progress:
                    progress("ingest", done, len(self.docs))

    def _ingest_small(self, progress: Progress | None) -> None:
        now = datetime.now(UTC)
        for n, s in enumerate(self.small, start=1):
            events = []
            for d in s.docs:
                event = to_event(d, "A", PREFIX, now=now)
                # What it replaces may be in no small namespace.
                event.pop("supersedes", None)
                events.append(msgspec.convert({**event, "namespace": s.namespace}, wire.Event))
            self.runtime.services.events.write(OPEN, events)
            if progress:
                progress("small", n, len(self.small))

    def _relevant(self, query: Query) -> set[str]:
        return {doc for doc, r in self.qrels[query.id].items() if r > 0}

    def candidates(self, progress: Progress | None = None) -> list[Candidates]:
        """Each question's hybrid-search candidates in its own namespace, with the features
        the learned fusion scores (the configured model's, whatever its weights); entries
        superseded are left out, as a search never shows them."""
        searcher = self.runtime.searcher
        fusion = searcher.fusion
        if not isinstance(fusion, LearnedFusion):
            raise ValueError("the ranking model is fitted for STRATA_FUSION=learned")
        found = []
        for n, query in enumerate(self.queries, start=1):
            home = namespace_for(PREFIX, query.namespace)
            for namespace, elsewhere in self._asked_in(home):
                found.append(self._candidates(query, namespace, elsewhere))
            if progress:
                progress("rank", n, len(self.queries))
        for s in self.small:
            found.append(self._candidates(s.query, s.namespace, False, s.home))
        for s, namespace in self._small_elsewhere():
            found.append(self._candidates(s.query, namespace, True, s.home))
        return found

    def _asked_in(self, home: str) -> list[tuple[str, bool]]:
        """Where a question of ``home`` is asked: there, and in the next namespace of the set
        when it has several (where nothing answers it)."""
        asked = [(home, False)]
        if len(self.namespaces) > 1:
            following = (self.namespaces.index(home) + 1) % len(self.namespaces)
            asked.append((self.namespaces[following], True))
        return asked

    def _candidates(
        self, query: Query, namespace: str, elsewhere: bool, small_of: str | None = None
    ) -> Candidates:
        """The question's candidates asked in ``namespace``; ``small_of``: that namespace is
        a small one, for a question of this namespace of the set."""
        searcher = self.runtime.searcher
        fusion = searcher.fusion
        assert isinstance(fusion, LearnedFusion)
        filters = Filters(namespace=namespace, tiers=TIERS, now=datetime.now(UTC).timestamp())
        lists = searcher.lists(query.text, filters, "hybrid", POOL_DEPTH)
        if lists.vector is None:
            raise ValueError("the ranking model is fitted with an embedding model")
        pool = fusion.pool(lists).features
        loaded = searcher.ledger.passages(pool.keys)
        # What a search settles (and so learns what each candidate replaced from): the
        # pool's first by the configured model's pool weights.
        settled = settled_rows(pool_logits(pool.matrix, fusion.model.pool_weights), SETTLED)
        replaced = replaced_matches(
            (loaded[pool.keys[row]][0], pool.of(row)) for row in settled if pool.keys[row] in loaded
        )
        terms, cued = content_terms(query.text), asks_for_decision(query.text)
        named = named_terms(query.text)
        relevant = set() if elsewhere else self._relevant(query)
        rows, truth, kinds = [], [], []
        for row, key in enumerate(pool.keys):
            if key not in loaded or loaded[key][0].superseded_by is not None:
                continue
            entry, listed = loaded[key][0], pool.of(row)
            unembedded = listed["unembedded"]
            rows.append(
                {
                    **listed,
                    **entry_features(
                        terms, entry, unembedded, {}, cued, named, replaced.get(entry.id, 0.0)
                    ),
                }
            )
            truth.append(self.source.get((namespace, entry.id)) in relevant)
            kinds.append(kind_of(entry))
        return Candidates(
            rows,
            truth,
            kinds,
            tuple(lists.vector),
            small_of or namespace,
            elsewhere,
            small=small_of is not None,
            question=query.id,
        )

    def rank_with(self, model: RankingModel) -> None:
        """Search with ``model`` from now on (``learned`` fusion)."""
        searcher = self.runtime.searcher
        if isinstance(searcher.fusion, LearnedFusion):
            searcher.fusion.model = model
        if searcher.cache is not None:
            searcher.cache.invalidate([*self.namespaces, *(s.namespace for s in self.small)])

    def observe(self, top_n: int = 5, progress: Progress | None = None) -> list[Observation]:
        """Each question asked through retrieve (and once more in another namespace when the
        set has several), with the evidence its answer gathered."""
        observed = []
        for n, query in enumerate(self.queries, start=1):
            home = namespace_for(PREFIX, query.namespace)
            for namespace, elsewhere in self._asked_in(home):
                observed.append(self._observe(query, namespace, elsewhere, top_n))
            if progress:
                progress("ask", n, len(self.queries))
        for s in self.small:
            observed.append(self._observe(s.query, s.namespace, False, top_n, small=True))
        for s, namespace in self._small_elsewhere():
            observed.append(self._observe(s.query, namespace, True, top_n, small=True))
        return observed

    def _observe(
        self, query: Query, namespace: str, elsewhere: bool, top_n: int, small: bool = False
    ) -> Observation:
        request = wire.RetrieveRequest(question=query.text, namespace=namespace, top_n=top_n)
        answer = self.runtime.services.answers.retrieve(OPEN, request).answer
        returned = {self.source.get((namespace, a.result.entry.id)) for a in answer.entries}
        return Observation(
            answer.evidence.features(),
            answer.confidence,
            answered=not elsewhere and bool(self._relevant(query) & returned),
            elsewhere=elsewhere,
            small=small,
        )
