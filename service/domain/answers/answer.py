"""The agent's answer path: retrieve (best grounded entries, a strong-match verdict and the
reasoning patterns that apply) and the routine check. Read-only: nothing here writes
knowledge; each retrieve is logged as an interaction."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from service.domain.answers.confidence import NO_EVIDENCE, gather
from service.domain.answers.policy import AnswerPolicy
from service.domain.answers.tuning import Tuning, Tunings
from service.domain.answers.verdict import Answer, Answered, as_referenced
from service.domain.entries import TIERS
from service.domain.model import Filters, Interaction, InteractionResult
from service.domain.ports import Embedder, InteractionLog
from service.domain.ports.references import Fits, References
from service.domain.search.query import SearchQuery, SearchResult
from service.domain.search.ranking import above
from service.domain.search.searcher import Searcher, cosine
from service.settings import AnswerSettings

PATTERNS = 4
"""Most reasoning patterns a retrieve returns."""
ROUTINE_CANDIDATES = 100
"""Tier E executions, best by BM25, compared with a task by the routine check."""
NO_RELEVANCE = "embedding model unavailable: relevance is the fused retrieval score"
NO_ROUTINE_CHECK = "embedding model unavailable: routine check not possible"


@dataclass(frozen=True)
class RoutineCheck:
    similar: int
    is_routine: bool
    examples: list[tuple[SearchResult, float]]
    """The most similar executions (at most 5), with their cosine similarity."""
    degraded: list[str]


@dataclass
class _Pool:
    """What one retrieve searched: the candidates (best first) and the patterns."""

    question: str
    namespace: str
    now: float
    found: list[SearchResult]
    patterns: list[SearchResult]
    degraded: list[str]
    _bound: float | None = None

    def bound(self, answerer: Answerer) -> float:
        """The question's BM25 bound in the namespace, asked once."""
        if self._bound is None:
            statistics = answerer.searcher.keywords.statistics(self.question, self.namespace)
            self._bound = statistics.bound
        return self._bound


class Answerer:
    def __init__(
        self,
        searcher: Searcher,
        embedder: Embedder | None,
        log: InteractionLog,
        settings: AnswerSettings,
        *,
        new_id: Callable[[], str],
        fits: Fits | None = None,
        references: References | None = None,
    ) -> None:
        """``fits``: the sweeps' fits of each namespace's threshold and floor; None: the
        policy's threshold and the searcher's floor everywhere. ``references``: the
        namespaces' reference questions, whose verdicts their questions are given; None:
        every question is judged by the calibration."""
        self.searcher = searcher
        self.embedder = embedder
        self.log = log
        self.policy = AnswerPolicy.of(settings)
        self.tunings = Tunings(fits, Tuning(self.policy.threshold, searcher.min_score))
        """The threshold and floor of each namespace's requests."""
        self.references = references
        self.new_id = new_id
        self.routine_similarity = settings.routine_similarity
        self.routine_min_similar = settings.routine_min_similar

    def retrieve(
        self,
        question: str,
        namespace: str,
        now: float,
        *,
        top_n: int = 5,
        asker: str | None = None,
        as_of: float | None = None,
        include_superseded: bool = False,
        record: bool = True,
        within: Filters | None = None,
        pool_size: int | None = None,
        by_relevance: bool = False,
        min_score: float | None = None,
    ) -> Answer:
        """The best entries for ``question``: of memory as it is, or as it held ``as_of``
        a moment; superseded entries left out unless ``include_superseded``, and those
        scoring below the relevance floor (none left: no strong match, confidence 0).
        Logged as an interaction unless ``record`` is False (a preview: its
        ``interaction_id`` is empty, as there is nothing to give feedback on). ``within``:
        the conditions the entries meet (its namespace, moment and ``include_superseded``
        are those given here); None: every tier. Reasoning patterns are of every tier.
        ``pool_size``: how many search results the entries are ranked from; None: three for
        every entry asked for (at least 20). ``by_relevance``: the entries are the most
        relevant (the search's score), not the best by the answer's blend; they are still
        given best blend first. ``min_score``: the relevance floor; None: the namespace's
        (its tuning's)."""
        started = time.perf_counter()
        pool = self._pool(
            question,
            namespace,
            now,
            as_of,
            include_superseded,
            within,
            pool_size or max(3 * top_n, 20),
        )
        tuning = self.tunings.of(namespace)
        floor = tuning.floor if min_score is None else min_score
        # The evidence is of the whole pool, as calibrated; the answer only of what is
        # relevant enough. Patterns have no floor: one tells how to think about a question,
        # it is rarely its answer, and the ranking model scores how likely an answer is.
        relevant = above(pool.found, floor)
        relevances = self._relevances(question, [*relevant, *pool.patterns], pool.degraded)
        answer = self._judged(pool, relevant, relevances, tuning, top_n, by_relevance)
        answer = replace(
            self._as_referenced(answer, pool, top_n),
            interaction_id=self.new_id() if record else "",
            took_ms=round((time.perf_counter() - started) * 1000, 2),
        )
        if not record:
            return answer
        self.log.record(
            Interaction(
                id=answer.interaction_id,
                at=now,
                namespace=namespace,
                asker=asker,
                question=question,
                results=[
                    InteractionResult(a.result.entry.id, a.relevance, a.score)
                    for a in answer.entries
                ],
                strong_match=answer.strong_match,
                best_relevance=answer.best_relevance,
                took_ms=answer.took_ms,
                answer_confidence=answer.confidence,
            )
        )
        return answer

    def at_floors(
        self, question: str, namespace: str, now: float, floors: Sequence[float], top_n: int = 5
    ) -> tuple[list[tuple[str, float]], list[Answer]]:
        """The search's results (ids and scores, best first) and the answer a retrieve of
        ``question`` gives at each floor of ``floors`` (the namespace's threshold judging
        it), from one search: nothing is logged. A sweep weighs floors with it."""
        pool = self._pool(question, namespace, now, None, False, None, max(3 * top_n, 20))
        tuning = self.tunings.of(namespace)
        found = [*pool.found, *pool.patterns]
        relevance = dict(
            zip(
                map(id, found),
                self._relevances(question, found, pool.degraded),
                strict=True,
            )
        )
        answers = []
        for floor in floors:
            relevant = above(pool.found, floor)
            relevances = [relevance[id(r)] for r in [*relevant, *pool.patterns]]
            answers.append(self._judged(pool, relevant, relevances, tuning, top_n, False))
        return [(r.entry.id, r.score) for r in pool.found], answers

    def _pool(
        self,
        question: str,
        namespace: str,
        now: float,
        as_of: float | None,
        include_superseded: bool,
        within: Filters | None,
        size: int,
    ) -> _Pool:
        """The search a retrieve ranks its entries from, and the reasoning patterns."""
        everything = Filters(
            namespace=namespace,
            tiers=TIERS,
            now=now,
            include_superseded=include_superseded,
            as_of=as_of,
        )
        searched = everything
        if within is not None:
            searched = replace(
                within,
                namespace=namespace,
                now=now,
                include_superseded=include_superseded,
                as_of=as_of,
            )
        pool = self.searcher.search(SearchQuery(question, searched, limit=size, explain=True))
        patterns = self.searcher.search(
            SearchQuery(question, replace(everything, kind="pattern"), limit=PATTERNS)
        )
        return _Pool(
            question,
            namespace,
            now,
            [r for r in pool.results if r.entry.kind != "pattern"],
            patterns.results,
            list(dict.fromkeys([*pool.degraded, *patterns.degraded])),
        )

    def _judged(
        self,
        pool: _Pool,
        relevant: list[SearchResult],
        relevances: Sequence[float],
        tuning: Tuning,
        top_n: int,
        by_relevance: bool,
    ) -> Answer:
        """The answer of ``pool`` given the results above the floor (``relevant``) and the
        relevances of those and of the patterns; neither logged nor timed."""
        answered = [
            self._answered(result, relevance, pool.now)
            for result, relevance in zip(relevant, relevances, strict=False)
        ]
        if by_relevance:
            answered.sort(key=lambda a: -a.result.score)
            answered[:top_n] = sorted(answered[:top_n], key=lambda a: -a.score)
        else:
            answered.sort(key=lambda a: -a.score)
        entries = answered[:top_n]
        best = max((a.relevance for a in entries), default=0.0)
        evidence = (
            gather(pool.question, pool.found, [a.result for a in entries], pool.bound(self))
            if entries
            else NO_EVIDENCE
        )
        confidence = self.policy.calibration.confidence(evidence) if entries else 0.0
        pattern_answers = [
            self._answered(result, relevance, pool.now)
            for result, relevance in zip(pool.patterns, relevances[len(relevant) :], strict=True)
        ]
        return Answer(
            interaction_id="",
            entries=entries,
            patterns=pattern_answers,
            strong_match=bool(entries) and confidence >= tuning.threshold,
            confidence=round(confidence, 6),
            evidence=evidence,
            best_relevance=round(best, 6),
            took_ms=0.0,
            degraded=pool.degraded,
            tuning=tuning,
        )

    def _as_referenced(self, answer: Answer, pool: _Pool, top_n: int) -> Answer:
        """``answer`` as the namespace's reference question of the same words says, if it
        has one (``verdict.as_referenced``)."""
        if self.references is None:
            return answer
        reference = self.references.reference_asking(pool.namespace, pool.question)
        if reference is None:
            return answer

        def answered(results: Sequence[SearchResult]) -> list[Answered]:
            relevances = self._relevances(pool.question, results, pool.degraded)
            return [
                self._answered(r, relevance, pool.now)
                for r, relevance in zip(results, relevances, strict=True)
            ]

        return as_referenced(answer, reference, pool.found, top_n, answered)

    def routine_check(self, task: str, namespace: str, now: float) -> RoutineCheck:
        """How many tier E executions resemble ``task`` (cosine at or above the bar)."""
        executions = self.searcher.search(
            SearchQuery(
                task, Filters(namespace, ("E",), now), mode="bm25", limit=ROUTINE_CANDIDATES
            )
        )
        if self.embedder is None:
            return RoutineCheck(0, False, [], [*executions.degraded, NO_ROUTINE_CHECK])
        if not executions.results:
            return RoutineCheck(0, False, [], executions.degraded)
        task_vector = self.searcher.embed_query(task)
        vectors = self._embed_passages(executions.results)
        similar = [
            (result, round(_cosine(task_vector, vector), 6))
            for result, vector in zip(executions.results, vectors, strict=True)
        ]
        similar = sorted(
            (pair for pair in similar if pair[1] >= self.routine_similarity), key=lambda p: -p[1]
        )
        return RoutineCheck(
            similar=len(similar),
            is_routine=len(similar) >= self.routine_min_similar,
            examples=similar[:5],
            degraded=executions.degraded,
        )

    def _answered(self, result: SearchResult, relevance: float, now: float) -> Answered:
        parts = self.policy.parts(result.entry, result.score, now)
        return Answered(result, round(relevance, 6), round(self.policy.score(parts), 6), parts)

    def _embed_passages(self, results: Sequence[SearchResult]) -> list[tuple[float, ...]]:
        """The passages of ``results`` embedded now (read-time model work, counted)."""
        assert self.embedder is not None
        passages = [r.passage for r in results]
        vectors = self.embedder.embed(passages)
        if self.searcher.usage is not None:
            self.searcher.usage.passages_embedded(passages, [r.entry.key for r in results])
        return vectors

    def _relevances(
        self, question: str, results: Sequence[SearchResult], degraded: list[str]
    ) -> list[float]:
        """Each result's relevance: as the search measured it, else the cosine of question
        and best chunk, computed now (tier E entries have no stored vector)."""
        missing = [n for n, r in enumerate(results) if r.relevance is None]
        computed: dict[int, float] = {}
        if missing and self.embedder is not None:
            question_vector = self.searcher.embed_query(question)
            vectors = self._embed_passages([results[n] for n in missing])
            computed = {
                n: max(0.0, _cosine(question_vector, v))
                for n, v in zip(missing, vectors, strict=True)
            }
        elif missing:
            degraded.append(NO_RELEVANCE)
        return [
            r.relevance if r.relevance is not None else computed.get(n, r.score)
            for n, r in enumerate(results)
        ]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return cosine(a, b) or 0.0
