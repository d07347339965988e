"""An agent's context in one call: a retrieve's answer as one cited block within a budget
of model tokens."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass
from functools import partial

from schemas import wire
from service.application.answers import traced_retrieve
from service.application.auth import Principal
from service.application.inputs import not_blank, to_query
from service.domain.answers.answer import Answerer
from service.domain.answers.context import Block, Source, assemble
from service.domain.answers.verdict import Answer, Answered
from service.domain.entries import key_id
from service.domain.ports import Relations
from service.domain.tokens import TokenCounter
from service.telemetry import NONE, Telemetry

BY_CHARACTER = "embedding model unavailable: context tokens counted one per character"
MOST_POOL = 50
"""The most search results a block's entries are chosen from. A search settles (scores
with every feature) only as many candidates as it returns: the entries of a pool no larger
than those considered are the best by the list features alone past the first 30. On
locomo-tiers-dev a block of 1,024 tokens chosen from a search of 42 held the evidence for
0.905 of the questions, from a search of 50 for 0.911 (the same block otherwise)."""
FEWEST_CONSIDERED = 10
"""Entries a block considers at the least when the caller sets no ``max_entries``."""
TOKENS_PER_ENTRY = 24
"""Budget per entry considered when the caller sets no ``max_entries``: about the least an
entry takes in a block (its citation and a short excerpt), so the candidates can fill it.
On locomo-tiers-dev's conversation turns a block of 1,024 tokens shows about 40 entries;
one considered for every 32 tokens left it fewer than it had room for."""


@dataclass(frozen=True)
class Contextualised:
    answer: Answer
    block: Block
    max_tokens: int
    degraded: list[str]


@dataclass(eq=False)
class ContextUseCase:
    answerer: Answerer
    counter: TokenCounter
    """Measures the block."""
    degraded: list[str]
    _: KW_ONLY
    clock: Callable[[], float]
    ledger: Relations | None = None
    """Where what the entries replaced is read; None: not said."""
    by_model: bool = True
    """Whether ``counter`` is the model's tokenizer (else the block says it is degraded)."""
    telemetry: Telemetry = NONE

    def context(self, principal: Principal, request: wire.ContextRequest) -> Contextualised:
        """The entries a retrieve ranks first for the question, within the request's
        filters, as one block of at most ``max_tokens`` tokens; logged as an interaction
        (as a retrieve is), so feedback can be given on it."""
        question = not_blank(request.question, "question")
        namespace = principal.namespace(request.namespace)
        now = self.clock()
        filters = to_query(_search_of(request), namespace=namespace, now=now, floor=0.0).filters
        retrieve = partial(
            self.answerer.retrieve,
            question,
            namespace,
            now,
            top_n=considered(request.max_tokens, request.max_entries),
            pool_size=pool_size(request),
            by_relevance=True,
            asker=request.asker,
            as_of=filters.as_of,
            within=filters,
            min_score=request.min_score,
        )
        answer = traced_retrieve(self.telemetry, question, namespace, retrieve, confidence=False)
        keys = [a.result.entry.key for a in answer.entries]
        replaced = self._replaced(keys)
        # Kept by relevance, the search's score: on conversation memory (locomo-tiers-dev)
        # the answer's blend of type and freshness held the evidence less often past the
        # first ten entries (0.895 against 0.911 at 36). Shown in the answer's order.
        relevant_first = sorted(answer.entries, key=lambda a: -a.result.score)
        block = assemble(
            question,
            [_source(a, replaced.get(a.result.entry.key, ())) for a in relevant_first],
            [_source(a) for a in answer.patterns],
            self.counter,
            request.max_tokens,
            request.format,
        )
        degraded = [*self.degraded, *answer.degraded, *([] if self.by_model else [BY_CHARACTER])]
        return Contextualised(answer, block, request.max_tokens, degraded)

    def _replaced(self, keys: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The ids of the entries each of ``keys`` replaced, oldest first."""
        if self.ledger is None or not keys:
            return {}
        wanted, found = set(keys), defaultdict[str, list[str]](list)
        for relation in self.ledger.supersessions(keys):
            if relation.newer in wanted:
                found[relation.newer].append(key_id(relation.older))
        return {key: tuple(ids) for key, ids in found.items()}


def considered(max_tokens: int, max_entries: int | None) -> int:
    """How many entries, best first, a block of ``max_tokens`` considers: ``max_entries``
    when the caller sets it, else as many as the budget may hold."""
    if max_entries is not None:
        return max_entries
    return max(FEWEST_CONSIDERED, min(wire.MOST_ENTRIES, max_tokens // TOKENS_PER_ENTRY))


def pool_size(request: wire.ContextRequest) -> int:
    """Search results the entries are chosen from, the most relevant first: twice as many
    as are considered, at least a retrieve's (30) and at most ``MOST_POOL``."""
    wanted = 2 * considered(request.max_tokens, request.max_entries)
    return max(3 * FEWEST_CONSIDERED, min(MOST_POOL, wanted))


def _search_of(request: wire.ContextRequest) -> wire.SearchRequest:
    """The filters of a context request as a search's, checked as a search checks them."""
    return wire.SearchRequest(
        query=request.question,
        tiers=request.tiers,
        speaker=request.speaker,
        chain_type=request.chain_type,
        tags=request.tags,
        since=request.since,
        until=request.until,
        include_archived=request.include_archived,
        kind=request.kind,
        as_of=request.as_of,
    )


def _source(answered: Answered, replaces: tuple[str, ...] = ()) -> Source:
    entry = answered.result.entry
    return Source(
        entry.id,
        entry.tier,
        entry.timestamp,
        entry.speaker,
        entry.text,
        replaces,
        answered.score,
        entry.type,
    )
