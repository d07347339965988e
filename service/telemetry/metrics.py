"""The service's Prometheus metrics: defined once here, on a registry of the app's own.

Figures counted as work happens (requests, searches, group commits, engine calls, job runs)
are recorded through ``Metrics``; figures the service already keeps (read-time model work,
engine states, replica lag, leadership) are read when ``/metrics`` is scraped, so the hot
path pays nothing for them. Every sample carries the replica's name; no label ever holds a
namespace, an id or any text a caller chose (unbounded, and a leak).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
)
from prometheus_client.core import Metric
from prometheus_client.exposition import choose_encoder

from service.domain.memory.outcomes import Committed
from service.domain.model import JobRun
from service.domain.search.query import SearchOutcome
from service.telemetry.readings import Readings, StateCollector

log = logging.getLogger("strata")

SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Duration buckets, from a cached search to an engine's timeout."""
RESULTS = (0, 1, 2, 3, 5, 10, 20, 50, 100)
WRITES = (1, 2, 4, 8, 16, 32, 64, 128)
METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
DEGRADED = (
    ("embedding model", "model"),
    ("model", "model"),
    ("vector store", "vector store"),
    ("reranker", "reranker"),
    ("ledger", "ledger"),
    ("keyword index", "keyword index"),
)
"""What a degraded answer's reason starts with (or names), and the label it is counted by."""


def degraded_reason(reason: str) -> str:
    """The bounded label of a degraded answer's reason: the engine it did without."""
    lowered = reason.lower()
    for words, label in DEGRADED:
        if lowered.startswith(words):
            return label
    for words, label in DEGRADED:
        if words in lowered:
            return label
    return "other"


class Metrics:
    """Every metric of one app, and how to render them."""

    def __init__(self, replica: str, version: str) -> None:
        # A ``_created`` series beside each counter would double a scrape for nothing.
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.replica = replica
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry

        def counter(name: str, documentation: str, labels: Sequence[str] = ()) -> Counter:
            return Counter(name, documentation, labels, registry=r)

        def gauge(name: str, documentation: str, labels: Sequence[str] = ()) -> Gauge:
            return Gauge(name, documentation, labels, registry=r)

        def histogram(
            name: str,
            documentation: str,
            labels: Sequence[str] = (),
            buckets: Sequence[float] = SECONDS,
        ) -> Histogram:
            return Histogram(name, documentation, labels, buckets=buckets, registry=r)

        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        Gauge("strata_info", "This replica's version.", ["version"], registry=r).labels(
            version
        ).set(1)
        self.requests = counter(
            "strata_http_requests",
            "HTTP requests answered, by route template, method and status.",
            ["route", "method", "status"],
        )
        self.request_seconds = histogram(
            "strata_http_request_duration_seconds",
            "Time to answer an HTTP request, by route template, method and status.",
            ["route", "method", "status"],
        )
        self.search_seconds = histogram(
            "strata_search_duration_seconds",
            "Time of a search in the searcher, by mode (a retrieve makes two searches).",
            ["mode"],
        )
        self.stage_seconds = histogram(
            "strata_search_stage_duration_seconds",
            "Time of each step of a search: embed, bm25, vector, fusion, hydration, and rerank "
            "(or ranking, without a reranker).",
            ["mode", "stage"],
        )
        self.results = histogram(
            "strata_search_results", "Results a search returned.", buckets=RESULTS
        )
        self.relaxed = counter(
            "strata_search_relaxed", "Searches that found nothing and were retried wider."
        )
        self.degraded = counter(
            "strata_search_degraded",
            "Searches answered with less than they should have, by the engine done without.",
            ["reason"],
        )
        self.cache = counter(
            "strata_query_cache",
            "Searches answered from the query cache (hit) or searched (miss).",
            ["result"],
        )
        self.retrieve_seconds = histogram(
            "strata_retrieve_duration_seconds",
            "Time of a retrieve: its searches, the answer's scoring and its logging.",
        )
        self.retrieved = counter(
            "strata_retrieve_answers",
            "Retrieves answered, by whether they found a strong match.",
            ["strong_match"],
        )
        self.entries_written = counter(
            "strata_entries_written", "Entries stored by writes, by tier.", ["tier"]
        )
        self.chunks_embedded = counter("strata_chunks_embedded", "Chunks embedded by writes.")
        self.write_tokens = counter(
            "strata_write_model_tokens", "Model tokens embedded by writes (tiers A and C)."
        )
        self.tokens_avoided = counter(
            "strata_write_model_tokens_avoided",
            "Model tokens of written entries the tiers kept from the model (tier E).",
        )
        self.group_writes = histogram(
            "strata_group_commit_writes",
            "Writes committed together by one group commit.",
            buckets=WRITES,
        )
        self.group_wait = histogram(
            "strata_group_commit_wait_seconds", "Time a write waited for its group commit's turn."
        )
        self.job_runs = counter(
            "strata_job_runs",
            "Lifecycle job runs this replica finished, by job and outcome (ok, error).",
            ["job", "outcome"],
        )
        self.job_seconds = histogram(
            "strata_job_duration_seconds",
            "Time of a lifecycle job run.",
            ["job"],
            buckets=(*SECONDS, 30.0, 60.0, 300.0),
        )
        self.job_success = gauge(
            "strata_job_last_success_timestamp_seconds",
            "When a run of the job last succeeded on this replica (Unix seconds).",
            ["job"],
        )
        self.lifecycle = counter(
            "strata_lifecycle_entries",
            "Entries a lifecycle job changed, by job and what it did (archived, deleted, "
            "indexed, removed, quarantined, embedded, ...).",
            ["job", "action"],
        )
        self.engine_seconds = histogram(
            "strata_engine_call_duration_seconds",
            "Time of a call to an engine, by engine and operation.",
            ["engine", "operation"],
        )
        self.engine_errors = counter(
            "strata_engine_errors", "Calls to an engine that failed, by engine.", ["engine"]
        )

    def watch(self, readings: Readings) -> None:
        """Read these figures at every scrape."""
        self.registry.register(StateCollector(readings))

    def request(self, route: str, method: str, status: int, seconds: float) -> None:
        method = method if method in METHODS else "other"
        labels = (route, method, str(status))
        self.requests.labels(*labels).inc()
        self.request_seconds.labels(*labels).observe(seconds)

    def searched(self, outcome: SearchOutcome, seconds: float) -> None:
        """A search answered by the searcher."""
        self.results.observe(len(outcome.results))
        for reason in outcome.degraded:
            self.degraded.labels(degraded_reason(reason)).inc()
        if outcome.cached:
            self.cache.labels("hit").inc()
            return
        self.cache.labels("miss").inc()
        mode = outcome.mode
        self.search_seconds.labels(mode).observe(seconds)
        for stage, spent in outcome.stages.items():
            self.stage_seconds.labels(mode, stage).observe(spent)
        if outcome.relaxed:
            self.relaxed.inc()

    def retrieved_answer(self, strong_match: bool, seconds: float) -> None:
        self.retrieve_seconds.observe(seconds)
        self.retrieved.labels("true" if strong_match else "false").inc()

    def committed(self, commit: Committed) -> None:
        """A group commit of writes."""
        self.group_writes.observe(commit.writes)
        for wait in commit.waits:
            self.group_wait.observe(wait)
        tiers: dict[str, int] = {}
        chunks = tokens = avoided = 0
        for stored in commit.stored:
            tier = stored.entry.tier
            tiers[tier] = tiers.get(tier, 0) + 1
            if stored.entry.embedded and stored.has_vectors:
                chunks += len(stored.chunks)
                tokens += stored.tokens
            elif not stored.entry.embedded:
                avoided += stored.tokens
        for written, count in tiers.items():
            self.entries_written.labels(written).inc(count)
        self.chunks_embedded.inc(chunks)
        self.write_tokens.inc(tokens)
        self.tokens_avoided.inc(avoided)

    def job_ran(self, run: JobRun) -> None:
        outcome = "ok" if run.error is None else "error"
        self.job_runs.labels(run.job, outcome).inc()
        if run.finished_at is not None:
            self.job_seconds.labels(run.job).observe(max(0.0, run.finished_at - run.started_at))
            if run.error is None:
                self.job_success.labels(run.job).set(run.finished_at)
        for action, count in (run.result or {}).items():
            if isinstance(count, int) and not isinstance(count, bool) and count > 0:
                self.lifecycle.labels(run.job, action).inc(count)

    def engine_call(self, engine: str, operation: str, seconds: float) -> None:
        self.engine_seconds.labels(engine, operation).observe(seconds)

    def engine_failed(self, engine: str) -> None:
        self.engine_errors.labels(engine).inc()

    def render(self, accept: str = "") -> tuple[bytes, str]:
        """The exposition and its content type: the format ``accept`` asks for (OpenMetrics,
        or a later text format), else the Prometheus text format 0.0.4."""
        encode, content_type = choose_encoder(accept)
        return encode(_Labelled(self.registry, {"replica": self.replica})), content_type


class _Labelled:
    """A registry's metrics with labels added to every sample."""

    def __init__(self, registry: CollectorRegistry, labels: Mapping[str, str]) -> None:
        self.registry = registry
        self.labels = dict(labels)

    def collect(self) -> Iterator[Metric]:
        for family in self.registry.collect():
            family.samples = [
                s._replace(labels={**s.labels, **self.labels}) for s in family.samples
            ]
            yield family
