"""Metrics, engine instrumentation, request ids and log lines, without a server."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.domain.entries import Chunk, Entry, StoredEntry
from service.domain.errors import EngineUnavailable
from service.domain.memory.outcomes import Committed
from service.domain.model import JobRun
from service.domain.recall import UpstreamSnapshot
from service.domain.search.query import SearchOutcome
from service.domain.search.searcher import NO_EMBEDDER, NO_RERANKER
from service.lib.breaker import BreakerSnapshot
from service.lib.engines import Engines
from service.telemetry.engines import instrumented
from service.telemetry.logs import REQUEST_ID, JsonFormatter, RequestIdFilter, request_id
from service.telemetry.metrics import Metrics, degraded_reason
from service.telemetry.readings import Readings


def scraped(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    body, _ = metrics.render()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(body.decode())
        for s in family.samples
    }


def sample(metrics: Metrics, name: str, **labels: str) -> float:
    return scraped(metrics).get((name, tuple(sorted({**labels, "replica": "r1"}.items()))), 0.0)


def stored(entry_id: str, tier: str, tokens: int, vectors: bool) -> StoredEntry:
    entry = Entry(entry_id, "ns", tier, "text", 0.0)  # type: ignore[arg-type]
    vector = (0.1, 0.2) if vectors else None
    chunks = (Chunk(entry.key, 0, "text", vector), Chunk(entry.key, 1, "more", vector))
    return StoredEntry(entry, chunks, tokens)


@pytest.mark.parametrize(
    ("reason", "label"),
    [
        (NO_EMBEDDER, "model"),
        (f"{NO_RERANKER}: no reranker configured", "reranker"),
        (str(EngineUnavailable("vector store", "timed out")), "vector store"),
        (str(EngineUnavailable("model", "raised")), "model"),
        ("indexes behind the ledger (OperationalError)", "ledger"),
        ("something new", "other"),
    ],
)
def test_a_degraded_reason_is_counted_by_the_engine_it_did_without(reason: str, label: str) -> None:
    assert degraded_reason(reason) == label


def test_a_group_commit_counts_entries_by_tier_chunks_and_tokens_avoided() -> None:
    metrics = Metrics("r1", "0.1.0")
    metrics.committed(
        Committed(
            writes=2,
            waits=(0.001, 0.002),
            stored=(
                stored("a", "A", 10, True),
                stored("e", "E", 7, False),
                stored("c", "C", 5, False),
            ),
        )
    )
    assert sample(metrics, "strata_entries_written_total", tier="A") == 1
    assert sample(metrics, "strata_entries_written_total", tier="E") == 1
    assert sample(metrics, "strata_chunks_embedded_total") == 2  # a C entry without vectors: none
    assert sample(metrics, "strata_write_model_tokens_total") == 10
    assert sample(metrics, "strata_write_model_tokens_avoided_total") == 7
    assert sample(metrics, "strata_group_commit_writes_sum") == 2
    assert sample(metrics, "strata_group_commit_wait_seconds_count") == 2


def test_a_cached_search_counts_a_hit_and_no_stage() -> None:
    metrics = Metrics("r1", "0.1.0")
    searched = SearchOutcome([], "hybrid", [], stages={"bm25": 0.01, "embed": 0.02}, relaxed=True)
    metrics.searched(searched, 0.05)
    metrics.searched(SearchOutcome([], "hybrid", [NO_EMBEDDER], cached=True), 0.0001)
    assert sample(metrics, "strata_query_cache_total", result="miss") == 1
    assert sample(metrics, "strata_query_cache_total", result="hit") == 1
    assert sample(metrics, "strata_search_duration_seconds_count", mode="hybrid") == 1
    stage = "strata_search_stage_duration_seconds_sum"
    assert sample(metrics, stage, mode="hybrid", stage="embed") == pytest.approx(0.02)
    assert sample(metrics, "strata_search_relaxed_total") == 1
    assert sample(metrics, "strata_search_degraded_total", reason="model") == 1
    assert sample(metrics, "strata_search_results_count") == 2


def test_job_runs_count_outcomes_and_what_they_changed() -> None:
    metrics = Metrics("r1", "0.1.0")
    metrics.job_ran(JobRun(1, "archive_e_tier", "r1", 100.0, 102.5, {"archived": 40, "deleted": 0}))
    metrics.job_ran(JobRun(2, "archive_e_tier", "r1", 200.0, 201.0, None, "OperationalError: x"))
    runs = "strata_job_runs_total"
    assert sample(metrics, runs, job="archive_e_tier", outcome="ok") == 1
    assert sample(metrics, runs, job="archive_e_tier", outcome="error") == 1
    success = "strata_job_last_success_timestamp_seconds"
    assert sample(metrics, success, job="archive_e_tier") == 102.5
    changed = "strata_lifecycle_entries_total"
    assert sample(metrics, changed, job="archive_e_tier", action="archived") == 40


def test_figures_read_at_scrape_time_and_one_that_fails_is_left_out() -> None:
    metrics = Metrics("r1", "0.1.0")

    def away() -> int:
        raise ConnectionError("database away")

    metrics.watch(
        Readings(
            engine_up=lambda engine: engine != "vector store",
            lag=lambda: (2.5, 40),
            changes_applied=lambda: 1234,
            leads=lambda: False,
            quarantined=away,
        )
    )
    assert sample(metrics, "strata_engine_up", engine="vector store") == 0
    assert sample(metrics, "strata_engine_up", engine="ledger") == 1
    assert sample(metrics, "strata_replica_lag_seconds") == 2.5
    assert sample(metrics, "strata_replica_changes_behind") == 40
    assert sample(metrics, "strata_replica_changes_applied_total") == 1234
    assert sample(metrics, "strata_replica_leads_jobs") == 0
    assert ("strata_quarantined_entries", (("replica", "r1"),)) not in scraped(metrics)


def test_the_upstream_recalls_and_its_breaker_are_read_at_scrape_time() -> None:
    metrics = Metrics("r1", "0.1.0")
    breaker = BreakerSnapshot("open", failures=3, trips=2, rejected=7)
    snapshot = UpstreamSnapshot(
        "central", breaker, asked=9, answered=5, failed=4, circuit_open=7, busy=1, attempts=13
    )
    metrics.watch(Readings(upstream=lambda: snapshot))
    recalls = "strata_upstream_recalls_total"
    assert sample(metrics, recalls, outcome="answered") == 5
    assert sample(metrics, recalls, outcome="failed") == 4
    assert sample(metrics, recalls, outcome="circuit_open") == 7
    assert sample(metrics, recalls, outcome="busy") == 1
    assert sample(metrics, "strata_upstream_attempts_total") == 13
    assert sample(metrics, "strata_upstream_breaker_state", state="open") == 1
    assert sample(metrics, "strata_upstream_breaker_state", state="closed") == 0
    assert sample(metrics, "strata_upstream_breaker_trips_total") == 2
    # The upstream's name is not a label: it is configuration, not a measure.
    assert "central" not in metrics.render()[0].decode()


def test_openmetrics_when_asked() -> None:
    body, content_type = Metrics("r1", "0.1.0").render("application/openmetrics-text")
    assert content_type.startswith("application/openmetrics-text")
    assert body.decode().endswith("# EOF\n")


class Store:
    name = "store"

    def __init__(self) -> None:
        self.calls: list[Any] = []

    def search(self, text: str) -> list[str]:
        self.calls.append(text)
        return [text]

    def fail(self) -> None:
        raise EngineUnavailable("vector store", "connection refused")

    def _private(self) -> str:
        return "private"


def test_an_instrumented_store_times_calls_and_tells_engines_of_failures() -> None:
    metrics, engines, store = Metrics("r1", "0.1.0"), Engines(), Store()
    wrapped = instrumented(store, "vector store", metrics, engines, None)
    assert wrapped.search("q") == ["q"] and store.calls == ["q"]
    assert wrapped.name == "store" and wrapped._private() == "private"
    calls = "strata_engine_call_duration_seconds_count"
    assert sample(metrics, calls, engine="vector store", operation="search") == 1
    with pytest.raises(EngineUnavailable):
        wrapped.fail()
    assert engines.state("vector store").state == "unavailable"
    assert sample(metrics, "strata_engine_errors_total", engine="vector store") == 1
    wrapped.search("again")
    assert engines.state("vector store").state == "ok"


def test_nothing_is_wrapped_when_metrics_and_tracing_are_off() -> None:
    store = Store()
    assert instrumented(store, "ledger", None, Engines(), None) is store


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("req-42", True),
        ("0af7651916cd43dd8448eb211c80319c", True),
        ("", False),
        (None, False),
        ("has space", False),
        ("line\nbreak", False),
        ("x" * 129, False),
        ('{"json": 1}', False),
    ],
)
def test_a_callers_request_id_is_kept_only_when_fit(given: str | None, kept: bool) -> None:
    chosen = request_id(given)
    assert (chosen == given) is kept
    if not kept:
        assert len(chosen) == 32


def test_a_json_log_line_carries_the_request_id_of_its_context() -> None:
    record = logging.LogRecord("strata", logging.WARNING, __file__, 1, "ledger %s", ("away",), None)
    token = REQUEST_ID.set("req-7")
    try:
        RequestIdFilter().filter(record)
    finally:
        REQUEST_ID.reset(token)
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "ledger away"
    assert line["request_id"] == "req-7"
    assert line["level"] == "WARNING" and line["logger"] == "strata"
