"""Figures the service keeps anyway (read-time model work, engine states, replica lag,
leadership, quarantine, the query cache, the upstream's breaker), read when ``/metrics`` is
scraped, so the hot path pays nothing for them."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from service.domain.recall import UpstreamSnapshot

log = logging.getLogger("strata")

ENGINES = ("ledger", "vector store", "keyword index", "model")


@dataclass(frozen=True)
class Readings:
    """Where the figures read at scrape time come from (each None when this process has
    no such thing)."""

    read_work: Callable[[], tuple[Any, Mapping[str, Any]]] | None = None
    """Query work and passage work by namespace (``ReadModelUsage.snapshot``)."""
    engine_up: Callable[[str], bool] | None = None
    lag: Callable[[], tuple[float, int]] | None = None
    """Replica lag: seconds and changes behind."""
    changes_applied: Callable[[], int] | None = None
    leads: Callable[[], bool] | None = None
    quarantined: Callable[[], int] | None = None
    cached_queries: Callable[[], int] | None = None
    upstream: Callable[[], UpstreamSnapshot] | None = None
    """The upstream recall's counts and breaker (``UpstreamRecall.snapshot``)."""


class StateCollector(Collector):
    """Figures the service keeps anyway, read at scrape time; a figure that cannot be read
    (a database away) is left out of that scrape."""

    def __init__(self, readings: Readings) -> None:
        self.readings = readings

    def collect(self) -> Iterable[Metric]:
        r = self.readings
        yield from _read(lambda: self._model_work(r))
        if r.engine_up is not None:
            up = GaugeMetricFamily(
                "strata_engine_up",
                "Whether the engine answered its last call (1) or is unavailable (0).",
                labels=["engine"],
            )
            for engine in ENGINES:
                up.add_metric([engine], 1.0 if r.engine_up(engine) else 0.0)
            yield up
        if r.lag is not None:
            yield from _read(lambda: _lag(r))
        if r.changes_applied is not None:
            yield _counter(
                "strata_replica_changes_applied",
                "Changes of the shared ledger's log this replica applied to its keyword index.",
                r.changes_applied(),
            )
        if r.leads is not None:
            leads = GaugeMetricFamily(
                "strata_replica_leads_jobs",
                "Whether this replica runs the scheduled jobs (1) or not (0).",
                value=1.0 if r.leads() else 0.0,
            )
            yield leads
        if r.quarantined is not None:
            quarantined = r.quarantined
            yield from _read(
                lambda: [
                    GaugeMetricFamily(
                        "strata_quarantined_entries",
                        "Entries set aside because they could not be indexed.",
                        value=quarantined(),
                    )
                ]
            )
        if r.cached_queries is not None:
            yield GaugeMetricFamily(
                "strata_query_cache_entries",
                "Search outcomes held by the query cache.",
                value=r.cached_queries(),
            )
        if r.upstream is not None:
            yield from _upstream(r.upstream())

    @staticmethod
    def _model_work(r: Readings) -> list[Metric]:
        if r.read_work is None:
            return []
        queries, passages = r.read_work()
        calls = CounterMetricFamily(
            "strata_read_model_calls",
            "Model calls made by searches and retrieves: query embeddings and passages of "
            "unembedded entries measured against the query.",
            labels=["kind"],
        )
        tokens = CounterMetricFamily(
            "strata_read_model_tokens",
            "Model tokens embedded by searches and retrieves.",
            labels=["kind"],
        )
        calls.add_metric(["query"], queries.calls)
        tokens.add_metric(["query"], queries.tokens)
        calls.add_metric(["passage"], sum(w.calls for w in passages.values()))
        tokens.add_metric(["passage"], sum(w.tokens for w in passages.values()))
        return [calls, tokens]


def _lag(r: Readings) -> list[Metric]:
    assert r.lag is not None
    seconds, behind = r.lag()
    return [
        GaugeMetricFamily(
            "strata_replica_lag_seconds",
            "Since the oldest change of the shared ledger this replica has not applied.",
            value=seconds,
        ),
        GaugeMetricFamily(
            "strata_replica_changes_behind",
            "Changes of the shared ledger this replica has not applied yet.",
            value=behind,
        ),
    ]


BREAKER_STATES = ("closed", "open", "half_open")


def _upstream(snapshot: UpstreamSnapshot) -> list[Metric]:
    """The upstream recall: its outcomes and its circuit breaker's state."""
    recalls = CounterMetricFamily(
        "strata_upstream_recalls",
        "Recalls from the upstream by outcome: answered, failed, or not made because its "
        "breaker was open (circuit_open) or enough were under way (busy).",
        labels=["outcome"],
    )
    for outcome in ("answered", "failed", "circuit_open", "busy"):
        recalls.add_metric([outcome], getattr(snapshot, outcome))
    breaker = GaugeMetricFamily(
        "strata_upstream_breaker_state",
        "The upstream's circuit breaker: 1 for the state it is in.",
        labels=["state"],
    )
    for state in BREAKER_STATES:
        breaker.add_metric([state], 1.0 if snapshot.breaker.state == state else 0.0)
    return [
        recalls,
        _counter(
            "strata_upstream_attempts",
            "Calls made to the upstream, retries included.",
            snapshot.attempts,
        ),
        breaker,
        _counter(
            "strata_upstream_breaker_trips",
            "Times the upstream's circuit breaker opened.",
            snapshot.breaker.trips,
        ),
    ]


def _counter(name: str, documentation: str, value: float) -> CounterMetricFamily:
    return CounterMetricFamily(name, documentation, value=value)


def _read(read: Callable[[], list[Metric]]) -> list[Metric]:
    try:
        return read()
    except Exception as exc:  # a scrape never fails for one figure
        log.debug("a metric could not be read: %s", exc)
        return []
